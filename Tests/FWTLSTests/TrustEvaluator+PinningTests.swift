import FWTLS
import Testing

@Suite struct PinningTrustEvaluatorTests {
    static func trust(_ chain: [String], host: String = "localhost") throws -> ServerTrust {
        ServerTrust(certificateChain: try chain.map(Fixtures.certificate), host: host, anchors: try Fixtures.roots())
    }

    static let validChain = ["valid-ecdsa.pem", "intermediate-ca.pem"]

    // MARK: Certificates

    struct CertificateRow: CustomTestStringConvertible, Sendable {
        let chain: [String]
        let pinned: [String]
        let acceptSelfSigned: Bool
        let defaultValidation: Bool
        let outcome: TrustOutcome
        var testDescription: String { "\(chain) pinned \(pinned) selfSigned=\(acceptSelfSigned)" }
    }

    static let certificateRows: [CertificateRow] = [
        CertificateRow(chain: validChain, pinned: ["valid-ecdsa.pem"], acceptSelfSigned: false, defaultValidation: true,
                       outcome: .accepted),
        CertificateRow(chain: validChain, pinned: ["intermediate-ca.pem"], acceptSelfSigned: false,
                       defaultValidation: true, outcome: .accepted),
        CertificateRow(chain: validChain, pinned: ["wrong-host.pem", "valid-ecdsa.pem"], acceptSelfSigned: false,
                       defaultValidation: true, outcome: .accepted),
        CertificateRow(chain: validChain, pinned: ["valid-rsa.pem"], acceptSelfSigned: false, defaultValidation: true,
                       outcome: .pinMismatch),
        CertificateRow(chain: validChain, pinned: [], acceptSelfSigned: false, defaultValidation: true,
                       outcome: .pinMismatch),
        CertificateRow(chain: ["expired.pem", "intermediate-ca.pem"], pinned: ["expired.pem"], acceptSelfSigned: false,
                       defaultValidation: true, outcome: .expired),
        CertificateRow(chain: ["expired.pem", "intermediate-ca.pem"], pinned: ["expired.pem"], acceptSelfSigned: false,
                       defaultValidation: false, outcome: .accepted),
        CertificateRow(chain: ["self-signed.pem"], pinned: ["self-signed.pem"], acceptSelfSigned: false,
                       defaultValidation: true, outcome: .unknownRoot),
        CertificateRow(chain: ["self-signed.pem"], pinned: ["self-signed.pem"], acceptSelfSigned: true,
                       defaultValidation: true, outcome: .accepted),
        CertificateRow(chain: ["unknown-root-leaf.pem"], pinned: ["self-signed.pem"], acceptSelfSigned: true,
                       defaultValidation: true, outcome: .unknownRoot),
    ]

    @Test(arguments: certificateRows)
    func pinnedCertificates(_ row: CertificateRow) throws {
        let evaluator = PinnedCertificatesTrustEvaluator(
            certificates: try row.pinned.map(Fixtures.certificate),
            acceptSelfSignedCertificates: row.acceptSelfSigned, performDefaultValidation: row.defaultValidation
        )
        let trust = try Self.trust(row.chain)
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == row.outcome)
    }

    // MARK: Public keys

    @Test func pinnedPublicKeys() throws {
        let trust = try Self.trust(Self.validChain)
        let cases: [([String], TrustOutcome)] = [
            (["valid-ecdsa.pem"], .accepted),
            (["intermediate-ca.pem"], .accepted),
            (["valid-rsa.pem", "valid-ecdsa-chain.pem"], .accepted),
            (["valid-rsa.pem", "root-ca.pem"], .pinMismatch),
            ([], .pinMismatch),
        ]
        for (files, outcome) in cases {
            let keys = try files.map { try Fixtures.certificate($0).publicKey }
            let evaluator = PublicKeysTrustEvaluator(keys: keys)
            #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == outcome, "\(files)")
        }
        let wrongHost = try Self.trust(["wrong-host.pem", "intermediate-ca.pem"])
        let key = try Fixtures.certificate("wrong-host.pem").publicKey
        #expect(TrustOutcome.of { () throws(TrustError) in
            try PublicKeysTrustEvaluator(keys: [key]).evaluate(wrongHost)
        } == .hostnameMismatch)
        #expect(TrustOutcome.of { () throws(TrustError) in
            try PublicKeysTrustEvaluator(keys: [key], validateHost: false).evaluate(wrongHost)
        } == .accepted)
    }

    // MARK: SPKI pins

    @Test func spkiPinsWithBackups() throws {
        let leaf = try Fixtures.certificate("valid-ecdsa.pem").spkiPin
        let intermediate = try Fixtures.certificate("intermediate-ca.pem").spkiPin
        let other = try Fixtures.certificate("valid-rsa.pem").spkiPin
        let backup = try Fixtures.certificate("wildcard.pem").spkiPin
        let trust = try Self.trust(Self.validChain)
        let cases: [(String, Bool, TrustOutcome)] = [
            (leaf, false, .accepted),
            ("\(other);\(leaf)", false, .accepted),
            ("\(other); \(backup) ;\(leaf)", false, .accepted),
            ("\(other);\(backup)", false, .pinMismatch),
            (intermediate, false, .accepted),
            (intermediate, true, .pinMismatch),
            (leaf, true, .accepted),
        ]
        for (pins, leafOnly, outcome) in cases {
            let evaluator = try SPKIPinsTrustEvaluator(pins: pins, matchesLeafOnly: leafOnly)
            #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == outcome, "\(pins)")
        }
        let expired = try Self.trust(["expired.pem", "intermediate-ca.pem"])
        let expiredPin = try Fixtures.certificate("expired.pem").spkiPin
        #expect(TrustOutcome.of { () throws(TrustError) in
            try SPKIPinsTrustEvaluator(pins: expiredPin).evaluate(expired)
        } == .expired)
        #expect(TrustOutcome.of { () throws(TrustError) in
            try SPKIPinsTrustEvaluator(pins: expiredPin, performDefaultValidation: false).evaluate(expired)
        } == .accepted)
        let hashes = try SPKIPinsTrustEvaluator.parse("\(other);\(leaf)")
        let expected = [try Fixtures.certificate("valid-rsa.pem"), try Fixtures.certificate("valid-ecdsa.pem")]
        #expect(hashes == expected.map(\.spkiSHA256))
        #expect(throws: Never.self) { try SPKIPinsTrustEvaluator(hashes: hashes).evaluate(trust) }
        #expect(TrustOutcome.of { () throws(TrustError) in
            try SPKIPinsTrustEvaluator(hashes: []).evaluate(trust)
        } == .pinMismatch)
    }

    @Test(arguments: [
        "", "sha256//", "sha1//4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQTXA8=",
        "4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQTXA8=", "sha256//4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQTXA8",
        "sha256//4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQTXA==", "sha256//4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQT!A8=",
        "sha256//AAAA", "sha256//4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQTXA8=;",
        "sha256//4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQTXA8=;;sha256//4s7opJm/Ww4zIFS3BOxqtIAX2c79AxrXl3CbVIQTXA8=",
    ])
    func malformedPinsAreRefused(_ pins: String) {
        do {
            _ = try SPKIPinsTrustEvaluator(pins: pins)
            Issue.record("\"\(pins)\" must be refused")
        } catch {
            #expect(error.isInvalidPin)
        }
    }

    @Test func pinMismatchReasonListsTheServerKeys() throws {
        let trust = try Self.trust(Self.validChain)
        let other = try Fixtures.certificate("valid-rsa.pem").spkiPin
        do {
            try SPKIPinsTrustEvaluator(pins: other).evaluate(trust)
            Issue.record("must not match")
        } catch {
            #expect(error.reason.contains(try Fixtures.certificate("valid-ecdsa.pem").spkiPin))
            #expect(error.isPinMismatch)
        }
    }
}
