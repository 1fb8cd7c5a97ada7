import Foundation
import FWNetworking
import Testing
import TestSupport

// The task's transaction metrics carry what the connection's SCTs said (`fwCertificateTransparency`):
// a URLSession against `openssl s_server` serving the private fixtures' SCTs from the TLS extension, the
// certificate and a stapled OCSP response, judged by `tlsCertificateTransparencyPolicy`.

@Suite struct CertificateTransparencyMetricsTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var certificate = "valid-ecdsa.pem"
        var serverArguments: [String] = []
        var logList = true
        /// The (source, status) of each SCT, sorted.
        var expected: [String]
        var validLogs: Int
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "TLS extension", serverArguments: serverinfo("two-logs"),
            expected: ["tls-extension valid", "tls-extension valid"], validLogs: 2),
        Row(name: "unknown log", serverArguments: serverinfo("unknown-log"),
            expected: ["tls-extension unknown-log"], validLogs: 0),
        Row(name: "no log list", serverArguments: serverinfo("two-logs"), logList: false,
            expected: ["tls-extension unknown-log", "tls-extension unknown-log"], validLogs: 0),
        Row(name: "certificate", certificate: "pinning/embedded-sct.pem",
            expected: ["certificate valid", "certificate valid"], validLogs: 2),
        Row(name: "stapled OCSP", serverArguments: ["-status_file", TLSFixtures.path("pinning/ocsp-valid-ecdsa.sct-two-logs.der")],
            expected: ["ocsp valid", "ocsp valid"], validLogs: 2),
    ]

    static func serverinfo(_ name: String) -> [String] {
        ["-serverinfo", TLSFixtures.path("pinning/valid-ecdsa.sct-\(name).serverinfo.pem")]
    }

    @Test(arguments: rows)
    func theTransactionMetricsCarryTheValidation(_ row: Row) async throws {
        let server = try OpenSSLServer.start(certificate: row.certificate, extra: row.serverArguments)
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.tlsTrustRoots = .certificates(try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        configuration.tlsRequestsSignedCertificateTimestamps = true
        let logs = row.logList ? try CertificateTransparencyLogs(file: TLSFixtures.path("pinning/ct-logs.cnf")) : nil
        configuration.tlsCertificateTransparencyPolicy = CertificateTransparencyPolicy(logs: logs, minimumLogs: 2)
        let transaction = try await MetricsKeeper.lastTransaction(configuration: configuration, port: server.port)
        let result = try #require(transaction.fwCertificateTransparency)
        #expect(result.timestamps.map { "\($0.source) \($0.status)" }.sorted() == row.expected)
        #expect(result.validLogCount == row.validLogs)
        #expect(result.isPolicyMet == (row.validLogs >= 2))
        #expect(result.hasLogList == row.logList)
        #expect(transaction.fwSignedCertificateTimestampCount == row.expected.count)
        let leaf = try #require(try Certificate.certificates(pemFile: TLSFixtures.path(row.certificate)).first)
        #expect(result.timestamps.allSatisfy { $0.timestampMilliseconds == leaf.notBefore * 1000 })
    }
}

@Suite struct SignedCertificateTimestampMetricsTests {
    @Test(arguments: [true, false])
    func theMetricsCountTheSCTsTheServerPresented(_ asked: Bool) async throws {
        let serverinfo = TLSFixtures.path("pinning/valid-ecdsa.sct-two-logs.serverinfo.pem")
        let server = try OpenSSLServer.start(extra: ["-serverinfo", serverinfo])
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(root)
        configuration.tlsRequestsSignedCertificateTimestamps = asked
        let transaction = try await MetricsKeeper.lastTransaction(configuration: configuration, port: server.port)
        #expect(transaction.fwSignedCertificateTimestampCount == (asked ? 2 : 0))
    }
}

/// Keeps the transaction metrics of a task.
final class MetricsKeeper: NSObject, URLSessionTaskDelegate, Sendable {
    let metrics = LockedBox<URLSessionTaskMetrics?>(nil)

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        self.metrics.withLock { $0 = metrics }
    }

    /// GETs `https://127.0.0.1:port/` on a session with `configuration`, expects a 200 and returns the
    /// task's last transaction metrics.
    static func lastTransaction(configuration: URLSessionConfiguration,
                                port: Int) async throws -> URLSessionTaskTransactionMetrics {
        let keeper = MetricsKeeper()
        let session = URLSession(configuration: configuration, delegate: keeper, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "https://127.0.0.1:\(port)/"))
        let (_, response) = try await session.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(waitUntil(timeout: 10) { keeper.metrics.withLock { $0 } != nil })
        return try #require(keeper.metrics.withLock { $0 }?.transactionMetrics.last)
    }
}
