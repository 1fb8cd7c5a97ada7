import FWTLS
import Testing
import TestSupport

// Certificate Transparency with private test logs only: `openssl s_server -serverinfo` serves SCTs that
// Scripts/make-pinning-fixtures.sh signed with the keys of Fixtures/tls/pinning/ct-log-*.key, and
// OpenSSL's CT code validates them against ct-logs.cnf (logs a and b).

@Suite struct CertificateTransparencyTests {
    static func logs() throws -> CertificateTransparencyLogs {
        try CertificateTransparencyLogs(file: Fixtures.path("pinning/ct-logs.cnf"))
    }

    /// The trust of a handshake with s_server serving valid-ecdsa.pem and `serverinfo` (nil: no SCTs).
    static func trust(serverinfo: String?, maximumVersion: TLSVersion = .v1_3) throws -> ServerTrust {
        let extra = serverinfo.map { ["-serverinfo", Fixtures.path("pinning/valid-ecdsa.sct-\($0).serverinfo.pem")] }
        let server = try OpenSSLServer.start(extra: extra ?? [])
        defer { server.stop() }
        let context = try TLSContext(configuration: try Fixtures.configuration {
            $0.requestsSignedCertificateTimestamps = true
            $0.maximumVersion = maximumVersion
        })
        return try LoopbackTLSClient(context: context, port: server.port).connect()
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let serverinfo: String?
        let minimumLogs: Int
        let outcome: TrustOutcome
        var testDescription: String { "\(serverinfo ?? "no SCTs"), \(minimumLogs) logs" }
    }

    static let rows: [Row] = [
        Row(serverinfo: "two-logs", minimumLogs: 2, outcome: .accepted),
        Row(serverinfo: "one-log", minimumLogs: 2, outcome: .untrusted),
        Row(serverinfo: "one-log", minimumLogs: 1, outcome: .accepted),
        Row(serverinfo: "unknown-log", minimumLogs: 1, outcome: .untrusted),
        Row(serverinfo: nil, minimumLogs: 1, outcome: .untrusted),
    ]

    @Test(arguments: rows)
    func requiresValidSCTsFromDistinctLogs(_ row: Row) throws {
        let trust = try Self.trust(serverinfo: row.serverinfo)
        let evaluator = CertificateTransparencyTrustEvaluator(logs: try Self.logs(), minimumLogs: row.minimumLogs)
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == row.outcome)
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func theSCTsAreReadAndValidatedOverEitherVersion(_ version: TLSVersion) throws {
        let trust = try Self.trust(serverinfo: "two-logs", maximumVersion: version)
        let timestamps = trust.signedCertificateTimestamps(validatedAgainst: try Self.logs())
        #expect(timestamps.count == 2)
        #expect(timestamps.allSatisfy { $0.status == .valid && $0.source == "tls-extension" })
        #expect(Set(timestamps.map(\.logID)).count == 2)
        let leaf = try Fixtures.certificate("valid-ecdsa.pem")
        #expect(timestamps.allSatisfy { $0.timestampMilliseconds == leaf.notBefore * 1000 })
        #expect(SignedCertificateTimestamp.count(inList: try #require(trust.signedCertificateTimestampList)) == 2)
    }

    @Test func anUnknownLogIsNamedAsSuch() throws {
        let trust = try Self.trust(serverinfo: "unknown-log")
        let timestamps = trust.signedCertificateTimestamps(validatedAgainst: try Self.logs())
        #expect(timestamps.map(\.status) == [.unknownLog])
    }

    @Test func anSCTForAnotherCertificateIsInvalid() throws {
        var trust = try Self.trust(serverinfo: "two-logs")
        trust.certificateChain = try Fixtures.chain("valid-rsa.pem")
        let timestamps = trust.signedCertificateTimestamps(validatedAgainst: try Self.logs())
        #expect(timestamps.map(\.status) == [.invalid, .invalid])
    }

    /// The trust of a handshake with s_server serving pinning/embedded-sct.pem (its SCTs in its own extension,
    /// no -serverinfo).
    static func embeddedTrust() throws -> ServerTrust {
        let server = try OpenSSLServer.start(certificate: "pinning/embedded-sct.pem")
        defer { server.stop() }
        let context = try TLSContext(configuration: try Fixtures.configuration {
            $0.requestsSignedCertificateTimestamps = true
        })
        return try LoopbackTLSClient(context: context, port: server.port).connect()
    }

    @Test func sctsEmbeddedInTheCertificateAreValidatedByTheSamePolicy() throws {
        let trust = try Self.embeddedTrust()
        let timestamps = trust.signedCertificateTimestamps(validatedAgainst: try Self.logs())
        #expect(timestamps.count == 2)
        #expect(timestamps.allSatisfy { $0.status == .valid && $0.source == "certificate" })
        let leaf = try Fixtures.certificate("pinning/embedded-sct.pem")
        #expect(timestamps.allSatisfy { $0.timestampMilliseconds == leaf.notBefore * 1000 })
        #expect(CertificateTransparencyTrustEvaluator.validLogCount(timestamps) == 2)
        for (minimumLogs, outcome) in [(2, TrustOutcome.accepted), (3, .untrusted)] {
            let evaluator = CertificateTransparencyTrustEvaluator(logs: try Self.logs(), minimumLogs: minimumLogs)
            #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == outcome)
        }
    }

    @Test func embeddedSCTsDoNotValidateForAnotherCertificate() throws {
        var trust = try Self.embeddedTrust()
        trust.certificateChain = try Fixtures.chain("pinning/rotated.pem")
        let timestamps = trust.signedCertificateTimestamps(validatedAgainst: try Self.logs())
        #expect(timestamps.count == 2)
        #expect(timestamps.allSatisfy { $0.status != .valid })
    }

    @Test func listsThatAreNotLogListsAreRefused() {
        #expect(throws: TLSError.self) { try CertificateTransparencyLogs(file: Fixtures.path("valid-ecdsa.pem")) }
        #expect(throws: TLSError.self) { try CertificateTransparencyLogs(file: Fixtures.path("missing.cnf")) }
        #expect(SignedCertificateTimestamp.count(inList: [0, 5, 0]) == 0)
        #expect(SignedCertificateTimestamp.count(inList: []) == 0)
    }
}
