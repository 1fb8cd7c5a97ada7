import FWTLS
import Testing
import TestSupport

// What `TLSEngine.certificateTransparency` reports after a real handshake with `openssl s_server`, for
// SCTs from each source: the TLS extension (-serverinfo), the certificate (embedded-sct.pem) and a stapled
// OCSP response (-status_file with pinning/ocsp-valid-ecdsa.sct-*.der, made by Scripts/make-ocsp-sct.py).
// Private test logs only; SCT timestamps are compared with the leaf's notBefore read from the fixture.

@Suite struct CertificateTransparencyPolicyTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var certificate = "valid-ecdsa.pem"
        var serverinfo: String?
        var staple: String?
        var logList = true
        var minimumLogs = 2
        /// The (source, status) of each SCT, in any order.
        var expected: [String]
        var validLogs: Int
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "TLS extension, two logs", serverinfo: "two-logs",
            expected: ["tls-extension valid", "tls-extension valid"], validLogs: 2),
        Row(name: "TLS extension, unknown log", serverinfo: "unknown-log", minimumLogs: 1,
            expected: ["tls-extension unknown-log"], validLogs: 0),
        Row(name: "no log list: unknown-log, never valid", serverinfo: "two-logs", logList: false,
            expected: ["tls-extension unknown-log", "tls-extension unknown-log"], validLogs: 0),
        Row(name: "embedded in the certificate", certificate: "pinning/embedded-sct.pem",
            expected: ["certificate valid", "certificate valid"], validLogs: 2),
        Row(name: "stapled OCSP, two logs", staple: "two-logs",
            expected: ["ocsp valid", "ocsp valid"], validLogs: 2),
        Row(name: "TLS extension log a + stapled OCSP log b", serverinfo: "one-log", staple: "log-b",
            expected: ["ocsp valid", "tls-extension valid"], validLogs: 2),
        Row(name: "stapled OCSP, one log of two required", staple: "log-b",
            expected: ["ocsp valid"], validLogs: 1),
        Row(name: "no SCTs", minimumLogs: 1, expected: [], validLogs: 0),
    ]

    /// An engine that finished its handshake with s_server serving the row's certificate and SCTs.
    static func handshake(_ row: Row, asked: Bool = true) throws -> LoopbackTLSClient {
        var extra: [String] = []
        if let serverinfo = row.serverinfo {
            extra += ["-serverinfo", Fixtures.path("pinning/valid-ecdsa.sct-\(serverinfo).serverinfo.pem")]
        }
        if let staple = row.staple { extra += ["-status_file", Fixtures.path("pinning/ocsp-valid-ecdsa.sct-\(staple).der")] }
        let server = try OpenSSLServer.start(certificate: row.certificate, extra: extra)
        defer { server.stop() }
        let logs = row.logList ? try CertificateTransparencyLogs(file: Fixtures.path("pinning/ct-logs.cnf")) : nil
        let context = try TLSContext(configuration: try Fixtures.configuration {
            $0.requestsSignedCertificateTimestamps = asked
            $0.certificateTransparencyPolicy = CertificateTransparencyPolicy(logs: logs, minimumLogs: row.minimumLogs)
            $0.resumesSessions = false
        })
        let client = try LoopbackTLSClient(context: context, port: server.port)
        try client.handshake()
        return client
    }

    @Test(arguments: rows)
    func theEngineReportsEachSCTWithItsSourceAndStatus(_ row: Row) throws {
        let client = try Self.handshake(row)
        let result = try #require(client.engine.certificateTransparency)
        #expect(result.timestamps.map { "\($0.source) \($0.status)" }.sorted() == row.expected)
        #expect(result.validLogCount == row.validLogs)
        #expect(result.minimumLogs == row.minimumLogs)
        #expect(result.isPolicyMet == (row.validLogs >= row.minimumLogs))
        #expect(result.hasLogList == row.logList)
        let leaf = try Fixtures.certificate(row.certificate)
        #expect(result.timestamps.allSatisfy { $0.timestampMilliseconds == leaf.notBefore * 1000 })
        #expect(result.timestamps.allSatisfy { $0.logID.count == 32 })
    }

    @Test func nothingIsReportedWhenSCTsWereNotAskedFor() throws {
        let client = try Self.handshake(Row(name: "", serverinfo: "two-logs", expected: [], validLogs: 0), asked: false)
        #expect(client.engine.negotiatedVersion != nil)
        #expect(client.engine.certificateTransparency == nil)
    }

    /// The staple carrying SCTs is still a good OCSP response, signed by the responder.
    @Test func theStapleWithSCTsStillVerifies() throws {
        let client = try Self.handshake(Row(name: "", staple: "two-logs", expected: [], validLogs: 0))
        let trust = client.engine.makeServerTrust()
        #expect(trust.stapledOCSPResponse != nil)
        let evaluator = RevocationTrustEvaluator(requiresStapledResponse: true)
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == .accepted)
    }
}

@Suite struct CertificateTransparencyResumptionTests {
    /// A resumed session brings no SCTs: a context asking for them keeps no sessions, so the second
    /// connection makes a full handshake and its SCTs are judged again.
    @Test func connectionsAskingForSCTsNeverResume() throws {
        let serverinfo = Fixtures.path("pinning/valid-ecdsa.sct-two-logs.serverinfo.pem")
        let server = try OpenSSLServer.start(extra: ["-serverinfo", serverinfo])
        defer { server.stop() }
        let logs = try CertificateTransparencyLogs(file: Fixtures.path("pinning/ct-logs.cnf"))
        let context = try TLSContext(configuration: try Fixtures.configuration {
            $0.requestsSignedCertificateTimestamps = true
            $0.certificateTransparencyPolicy = CertificateTransparencyPolicy(logs: logs)
        }, sessionStore: TestSessionStore())
        #expect(context.sessionStore == nil)
        for _ in 0..<2 {
            let client = try LoopbackTLSClient(context: context, port: server.port)
            try client.handshake()
            #expect(!client.engine.isResumed)
            #expect(client.engine.certificateTransparency?.isPolicyMet == true)
            _ = try client.get()
        }
    }
}
