import FWTLS
import Foundation
import Testing

/// Fails loudly a year before any fixture (other than the deliberately expired and not-yet-valid ones)
/// expires: rerun Scripts/make-test-certs.sh and commit the result.
@Suite struct FixtureExpiryTests {
    static let files = [
        "root-ca.pem", "intermediate-ca.pem", "unknown-root-ca.pem", "client-ca.pem", "valid-ecdsa.pem",
        "valid-ecdsa-chain.pem", "valid-rsa.pem", "wrong-host.pem", "wildcard.pem", "ip-only.pem", "cn-only.pem",
        "revoked.pem", "unknown-root-leaf.pem", "self-signed.pem", "client.pem",
    ]

    static let oneYear: Int64 = 365 * 24 * 60 * 60

    @Test(arguments: files)
    func validForAnotherYear(_ file: String) throws {
        let inAYear = Int64(Date().timeIntervalSince1970) + Self.oneYear
        for certificate in try Certificate.certificates(pemFile: Fixtures.path(file)) {
            #expect(
                certificate.notAfter > inAYear,
                "\(file) expires within a year: run Scripts/make-test-certs.sh and commit Fixtures/tls"
            )
        }
    }

    @Test func stapledOCSPResponseValidForAnotherYear() throws {
        var trust = ServerTrust(
            certificateChain: try Fixtures.chain("valid-ecdsa.pem"), host: "localhost", anchors: try Fixtures.roots(),
            verificationTime: Int64(Date().timeIntervalSince1970) + Self.oneYear,
            stapledOCSPResponse: try Fixtures.bytes("ocsp-valid-ecdsa-good.der")
        )
        let evaluator = RevocationTrustEvaluator(performDefaultValidation: false, requiresStapledResponse: true)
        #expect(throws: Never.self, "ocsp-valid-ecdsa-good.der goes stale within a year: rerun the script") {
            try evaluator.evaluate(trust)
        }
        trust.stapledOCSPResponse = try Fixtures.bytes("ocsp-revoked.der")
        trust.certificateChain = try Fixtures.chain("revoked.pem")
        #expect(throws: TrustError.self) { try evaluator.evaluate(trust) }
    }
}
