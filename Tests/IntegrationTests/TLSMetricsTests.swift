import Foundation
import FWNetworking
import Testing
import TestSupport

// What URLSessionTaskTransactionMetrics reports about TLS (FoundationNetworking's
// negotiatedTLSProtocolVersion / negotiatedTLSCipherSuite, and FWNetworking's resumed flag, cipher name
// and ALPN), against `openssl s_server` (a new connection per request: resumption) and nginx
// (keep-alive: a reused connection reports its TLS facts too).

/// Keeps the metrics of every task it is the delegate of.
final class MetricsCollector: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // `collected`: `lock`
    private let lock = NSLock()
    private var collected: [URLSessionTaskMetrics] = []

    var all: [URLSessionTaskMetrics] { lock.withLock { collected } }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        lock.withLock { collected.append(metrics) }
    }
}

@Suite struct TLSMetricsTests {
    static func session(resumption: Bool = true) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.tlsSessionResumption = resumption
        configuration.tlsTrustRoots = .certificates(
            try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        configuration.timeoutIntervalForResource = 20
        return URLSession(configuration: configuration)
    }

    /// Loads `url` `times` times, one after another, and returns the last transaction of each.
    static func transactions(_ session: URLSession, _ url: String, times: Int) async throws
        -> [URLSessionTaskTransactionMetrics] {
        let collector = MetricsCollector()
        for _ in 0..<times {
            _ = try await session.data(for: URLRequest(url: URL(string: url)!), delegate: collector)
        }
        return try collector.all.map { try #require($0.transactionMetrics.last) }
    }

    @Test(arguments: ["-tls1_2", "-tls1_3"])
    func withResumptionOffEveryConnectionMakesAFullHandshake(_ flag: String) async throws {
        let server = try OpenSSLServer.start(extra: [flag])
        defer { server.stop() }
        let session = try Self.session(resumption: false)
        defer { session.invalidateAndCancel() }
        let hops = try await Self.transactions(session, "https://127.0.0.1:\(server.port)/", times: 3)
        #expect(hops.map(\.isReusedConnection) == [false, false, false])
        #expect(hops.map(\.fwIsTLSSessionResumed) == [false, false, false])
    }

    @Test(arguments: [
        ("-tls1_2", tls_protocol_version_t.TLSv12, tls_ciphersuite_t.ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
         "ECDHE-ECDSA-AES256-GCM-SHA384"),
        ("-tls1_3", .TLSv13, .AES_256_GCM_SHA384, "TLS_AES_256_GCM_SHA384"),
    ])
    func versionCipherAndResumption(_ flag: String, _ version: tls_protocol_version_t, _ suite: tls_ciphersuite_t,
                                    _ name: String) async throws {
        let server = try OpenSSLServer.start(extra: [flag, "-alpn", "http/1.1"])
        defer { server.stop() }
        let session = try Self.session()
        defer { session.invalidateAndCancel() }
        let hops = try await Self.transactions(session, "https://127.0.0.1:\(server.port)/", times: 2)
        #expect(hops.map(\.negotiatedTLSProtocolVersion) == [version, version])
        #expect(hops.map(\.negotiatedTLSCipherSuite) == [suite, suite])
        #expect(hops.map(\.fwNegotiatedTLSCipherSuiteName) == [name, name])
        #expect(hops.map(\.fwNegotiatedALPNProtocol) == ["http/1.1", "http/1.1"])
        #expect(hops.map(\.isReusedConnection) == [false, false], "s_server -www closes every connection")
        #expect(hops.map(\.fwIsTLSSessionResumed) == [false, true], "the second connection resumes the first")
        #expect(hops.allSatisfy { $0.secureConnectionStartDate != nil && $0.secureConnectionEndDate != nil })
    }

    @Test func aReusedConnectionReportsItsTLSFacts() async throws {
        let nginx = try NginxServer(blocks: [
            NginxServer.Block(tls: (chain: ["valid-rsa.pem", "intermediate-ca.pem"], key: "valid-rsa.key"),
                              config: "location / { return 200 \"kept alive\\n\"; }"),
        ])
        defer { nginx.stop() }
        let session = try Self.session()
        defer { session.invalidateAndCancel() }
        let hops = try await Self.transactions(session, "https://127.0.0.1:\(nginx.ports[0])/", times: 2)
        #expect(hops.map(\.isReusedConnection) == [false, true])
        #expect(hops[1].negotiatedTLSProtocolVersion != nil)
        #expect(hops[1].negotiatedTLSProtocolVersion == hops[0].negotiatedTLSProtocolVersion)
        #expect(hops[1].fwNegotiatedTLSCipherSuiteName == hops[0].fwNegotiatedTLSCipherSuiteName)
        #expect(hops[1].fwNegotiatedALPNProtocol == "http/1.1")
        #expect(hops[1].secureConnectionStartDate == nil, "no handshake for the reused connection")
    }

    @Test func plainHTTPHasNoTLSFacts() async throws {
        let server = try LoopbackHTTPServer { _ in .ok("plain") }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let hop = try #require(try await Self.transactions(session, server.baseURL + "/", times: 1).first)
        #expect(hop.negotiatedTLSProtocolVersion == nil)
        #expect(hop.negotiatedTLSCipherSuite == nil)
        #expect(hop.fwNegotiatedTLSCipherSuiteName == nil)
        #expect(hop.fwNegotiatedALPNProtocol == nil)
        #expect(!hop.fwIsTLSSessionResumed)
    }
}
