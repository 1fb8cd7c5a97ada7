import Foundation
import FWNetworking
import Testing
import TestSupport

// Proxies end to end against real ones started on loopback ports: squid (absolute-form HTTP, CONNECT tunnels,
// Basic credentials checked by basic_ncsa_auth) and microsocks (SOCKS5, RFC 1929), with nginx, openssl
// s_server and a loopback server as origins; pins are checked on the origin through the tunnel.
@Suite struct ProxyTests {
    /// What one load produced.
    struct Outcome {
        var body: String
        var status: Int
        var transaction: URLSessionTaskTransactionMetrics?
    }

    static func session(_ proxies: [AnyHashable: Any], delegate: (any URLSessionDelegate)? = nil,
                        requestTimeout: TimeInterval = 60) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = proxies
        configuration.timeoutIntervalForRequest = requestTimeout
        configuration.tlsTrustRoots = .certificates(
            try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        configuration.timeoutIntervalForResource = 20
        // Every request must reach the network: nginx's files are heuristically fresh for a moment.
        configuration.urlCache = nil
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    static func load(_ url: String, _ proxies: [AnyHashable: Any], delegate: (any URLSessionDelegate)? = nil,
                     headers: [String: String] = [:]) async throws -> Result<Outcome, URLError> {
        let session = try session(proxies, delegate: delegate)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: try #require(URL(string: url)))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let collector = MetricsCollector()
        do {
            let (body, response) = try await session.data(for: request, delegate: collector)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            return .success(Outcome(body: String(decoding: body, as: UTF8.self), status: status,
                                    transaction: collector.all.last?.transactionMetrics.last))
        } catch let error as URLError {
            return .failure(error)
        }
    }

    static func httpProxy(_ port: Int, user: String? = nil, password: String? = nil) -> [AnyHashable: Any] {
        var proxies: [AnyHashable: Any] = [
            kCFNetworkProxiesHTTPEnable: 1, kCFNetworkProxiesHTTPProxy: "127.0.0.1", kCFNetworkProxiesHTTPPort: port,
            kCFNetworkProxiesHTTPSEnable: 1, kCFNetworkProxiesHTTPSProxy: "127.0.0.1", kCFNetworkProxiesHTTPSPort: port,
        ]
        if let user { proxies[kCFProxyUsernameKey] = user }
        if let password { proxies[kCFProxyPasswordKey] = password }
        return proxies
    }

    static func socksProxy(_ port: Int, user: String? = nil, password: String? = nil,
                           localResolution: Bool = false) -> [AnyHashable: Any] {
        var proxies: [AnyHashable: Any] = [
            kCFNetworkProxiesSOCKSEnable: 1, kCFNetworkProxiesSOCKSProxy: "127.0.0.1", kCFNetworkProxiesSOCKSPort: port,
            kFWNetworkProxiesSOCKSResolvesNamesLocally: localResolution,
        ]
        if let user { proxies[kCFStreamPropertySOCKSUser] = user }
        if let password { proxies[kCFStreamPropertySOCKSPassword] = password }
        return proxies
    }

    static let file: [String: [UInt8]] = ["hello.bin": Array("hello through the proxy\n".utf8)]

    // MARK: squid

    @Test func plainHTTPGoesToSquidInAbsoluteFormWithItsCredentials() async throws {
        let origin = try NginxServer(files: Self.file)
        let squid = try SquidProxy(users: ["alice": "secret"])
        let url = "\(origin.baseURL)/hello.bin"
        let outcome = try await Self.load(url, Self.httpProxy(squid.port, user: "alice", password: "secret")).get()
        #expect(outcome.body == "hello through the proxy\n")
        #expect(outcome.transaction?.isProxyConnection == true)
        #expect(outcome.transaction?.remotePort == "\(squid.port)")
        #expect(squid.logged("GET \(url) 200 alice"), "\(squid.accessLog)")
    }

    @Test func withoutCredentialsSquidsAnswerIsTheResponse() async throws {
        let origin = try NginxServer(files: Self.file)
        let squid = try SquidProxy(users: ["alice": "secret"])
        let outcome = try await Self.load("\(origin.baseURL)/hello.bin", Self.httpProxy(squid.port)).get()
        #expect(outcome.status == 407)
    }

    @Test(arguments: [true, false])
    func httpsTunnelsThroughSquidAnsweringItsChallengeAndPinsTheOrigin(_ pinMatches: Bool) async throws {
        let origin = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        let squid = try SquidProxy(users: ["alice": "secret"])
        let pins = SPKIPins([try FixturePins.pin(pinMatches ? "valid-rsa.pem" : "valid-ecdsa.pem")])
        let result = try await Self.load("https://127.0.0.1:\(origin.port)/",
                                         Self.httpProxy(squid.port, user: "alice", password: "secret"),
                                         delegate: SessionLevelPinner(pins))
        #expect(pins.made == [PinDecision(port: origin.port, accepted: pinMatches)], "the origin's chain is judged")
        if pinMatches {
            let outcome = try result.get()
            #expect(outcome.body.contains("s_server"))
            #expect(outcome.transaction?.isProxyConnection == true)
            #expect(outcome.transaction?.negotiatedTLSProtocolVersion != nil)
        } else {
            #expect(result.failure?.code == .cancelled, "\(result)")
        }
        #expect(squid.logged("CONNECT 127.0.0.1:\(origin.port) 200 alice"), "\(squid.accessLog)")
        #expect(squid.accessLog.filter { $0.hasPrefix("CONNECT 127.0.0.1:\(origin.port) 407") }.count == 1)
    }

    @Test(arguments: [nil, "wrong"])
    func aTunnelWithoutAcceptedCredentialsFailsAsAuthenticationRequired(_ password: String?) async throws {
        let origin = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        let squid = try SquidProxy(users: ["alice": "secret"])
        let proxies = Self.httpProxy(squid.port, user: password.map { _ in "alice" }, password: password)
        let result = try await Self.load("https://127.0.0.1:\(origin.port)/", proxies)
        #expect(result.failure?.code == .userAuthenticationRequired, "\(result)")
    }

    @Test func aTunnelIsReusedForTheNextRequestToItsOrigin() async throws {
        let origin = try NginxServer(files: Self.file, blocks: [NginxServer.Block(
            tls: (chain: ["valid-ecdsa.pem", "intermediate-ca.pem"], key: "valid-ecdsa.key"))])
        let squid = try SquidProxy()
        let session = try Self.session(Self.httpProxy(squid.port))
        let collector = MetricsCollector()
        let url = try #require(URL(string: "https://127.0.0.1:\(origin.port)/hello.bin"))
        for _ in 0..<2 {
            let (body, _) = try await session.data(for: URLRequest(url: url), delegate: collector)
            #expect(String(decoding: body, as: UTF8.self) == "hello through the proxy\n")
        }
        let transactions = collector.all.compactMap(\.transactionMetrics.last)
        #expect(transactions.map(\.isReusedConnection) == [false, true])
        #expect(transactions.count == 2 && transactions.allSatisfy { $0.isProxyConnection })
        #expect(session.connectionPoolCounters(for: url).idle == 1)
        // squid logs a tunnel when it closes.
        session.invalidateAndCancel()
        _ = waitUntil(timeout: 10) { squid.accessLog.contains { $0.hasPrefix("CONNECT ") } }
        #expect(squid.accessLog.filter { $0.hasPrefix("CONNECT ") }.count == 1, "\(squid.accessLog)")
    }

    /// An origin whose chain the session refuses, and the code the refusal has.
    struct RefusedOrigin: Sendable, CustomTestStringConvertible {
        let certificate: String
        let chain: String?
        let code: URLError.Code
        var testDescription: String { certificate }
    }

    @Test(arguments: [
        RefusedOrigin(certificate: "expired.pem", chain: "intermediate-ca.pem", code: .serverCertificateHasBadDate),
        RefusedOrigin(certificate: "self-signed.pem", chain: nil, code: .serverCertificateHasUnknownRoot),
    ])
    func aRefusedOriginThroughTheTunnelFailsWithItsPeerTrust(_ row: RefusedOrigin) async throws {
        let origin = try OpenSSLServer.start(certificate: row.certificate, chain: row.chain)
        let squid = try SquidProxy()
        let result = try await Self.load("https://127.0.0.1:\(origin.port)/", Self.httpProxy(squid.port))
        let error = try #require(result.failure, "\(result)")
        #expect(error.code == row.code)
        let trust = try #require(error.userInfo[NSURLErrorFailingURLPeerTrustErrorKey] as? SecTrust, "\(error)")
        let served = try ([row.certificate] + (row.chain.map { [$0] } ?? [])).flatMap {
            try Certificate.certificates(pemFile: TLSFixtures.path($0))
        }
        #expect(trust.serverTrust.certificateChain.map(\.derBytes) == served.map(\.derBytes))
        #expect(squid.logged("CONNECT 127.0.0.1:\(origin.port) 200 -"), "through the tunnel: \(squid.accessLog)")
    }

    // MARK: microsocks

    @Test(arguments: [false, true])
    func socks5CarriesPlainHTTPResolvingTheNameWhereAsked(_ localResolution: Bool) async throws {
        let origin = try NginxServer(files: Self.file)
        let socks = try MicrosocksProxy()
        let url = "http://localhost:\(origin.port)/hello.bin"
        let outcome = try await Self.load(url, Self.socksProxy(socks.port, localResolution: localResolution)).get()
        #expect(outcome.body == "hello through the proxy\n")
        #expect(outcome.transaction?.isProxyConnection == true)
        let named = socks.log.contains("connected to localhost:\(origin.port)")
        #expect(named == !localResolution, "\(socks.log)")
    }

    @Test(arguments: [true, false])
    func httpsThroughSOCKS5WithCredentialsPinsTheOrigin(_ pinMatches: Bool) async throws {
        let origin = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        let socks = try MicrosocksProxy(user: "bob", password: "pw")
        let pins = SPKIPins([try FixturePins.pin(pinMatches ? "valid-ecdsa.pem" : "valid-rsa.pem")])
        let result = try await Self.load("https://127.0.0.1:\(origin.port)/",
                                         Self.socksProxy(socks.port, user: "bob", password: "pw"),
                                         delegate: SessionLevelPinner(pins))
        #expect(pins.made == [PinDecision(port: origin.port, accepted: pinMatches)])
        if pinMatches {
            #expect(try result.get().body.contains("s_server"))
        } else {
            #expect(result.failure?.code == .cancelled, "\(result)")
        }
    }

    @Test func rejectedSOCKSCredentialsFailAsAuthenticationRequired() async throws {
        let origin = try NginxServer(files: Self.file)
        let socks = try MicrosocksProxy(user: "bob", password: "pw")
        let result = try await Self.load("\(origin.baseURL)/hello.bin", Self.socksProxy(socks.port, user: "bob",
                                                                                        password: "nope"))
        #expect(result.failure?.code == .userAuthenticationRequired, "\(result)")
    }

    // MARK: Proxy-Authorization and failures

    @Test func proxyAuthorizationNeverReachesAnOrigin() async throws {
        let origin = try LoopbackHTTPServer { _ in .ok("seen") }
        let socks = try MicrosocksProxy()
        let squid = try SquidProxy(users: ["alice": "secret"])
        let secret = ["Proxy-Authorization": "Basic c2VjcmV0"]
        let squidProxies = Self.httpProxy(squid.port, user: "alice", password: "secret")
        for proxies in [[:], Self.socksProxy(socks.port), squidProxies] {
            #expect(try await Self.load("\(origin.baseURL)/", proxies, headers: secret).get().body == "seen")
        }
        #expect(origin.requests.count == 3)
        #expect(origin.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
    }

    @Test func anUnreachableProxyIsCannotConnectToHostNamingTheProxy() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        let result = try await Self.load("http://127.0.0.1:1/", Self.socksProxy(port))
        #expect(result.failure?.code == .cannotConnectToHost, "\(result)")
        #expect(result.failure?.localizedDescription.contains("proxy socks5h://127.0.0.1:\(port)") == true,
                "\(String(describing: result.failure?.localizedDescription))")
    }

    @Test func aSilentProxyTimesOutAndAGarbledOneIsABadServerResponse() async throws {
        let silent = try ScriptedServer { connection in _ = connection.waitForClose(timeout: 5) }
        let garbled = try ScriptedServer { connection in try connection.write("SSH-2.0-OpenSSH_9.2\r\n") }
        let session = try Self.session(Self.httpProxy(silent.port), requestTimeout: 1)
        do {
            _ = try await session.data(from: try #require(URL(string: "https://127.0.0.1:1/")))
            Issue.record("a silent proxy answered")
        } catch let error as URLError {
            #expect(error.code == .timedOut, "\(error)")
        }
        session.invalidateAndCancel()
        let result = try await Self.load("https://127.0.0.1:1/", Self.httpProxy(garbled.port))
        #expect(result.failure?.code == .badServerResponse, "\(result)")
    }

    @Test func aProxyThatCannotReachTheOriginIsCannotConnectToHost() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let closed = refusing.port
        let socks = try MicrosocksProxy()
        let squid = try SquidProxy()
        for (url, proxies) in [("http://127.0.0.1:\(closed)/", Self.socksProxy(socks.port)),
                               ("https://127.0.0.1:\(closed)/", Self.httpProxy(squid.port))] {
            let result = try await Self.load(url, proxies)
            #expect(result.failure?.code == .cannotConnectToHost, "\(result)")
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
