import Foundation
import FWNetworking
import Testing
import TestSupport

// A proxy's 407 as a task challenge, end to end against squid (Basic through basic_ncsa_auth, Digest through
// digest_file_auth): for a plain request sent in absolute form (an HTTP-proxy protection space) and for the
// CONNECT of a tunnel (an HTTPS-proxy space), answered by the delegate, refused and asked again, or left
// unanswered (the 407 is the response; a tunnel's failure the task's error). fwcurl's -U with --proxy-digest
// and --proxy-anyauth answers the same challenges.
@Suite struct ProxyAuthenticationTests {
    /// Answers proxy challenges with the next of `credentials` (then default handling), recording each one;
    /// everything else gets default handling.
    final class ProxyAnswerer: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // `state`: LockedBox
        struct Asked: Equatable {
            var method: String
            var type: String?
            var realm: String?
            var failures: Int
        }

        let state: LockedBox<(credentials: [URLCredential], asked: [Asked])>

        init(_ credentials: [URLCredential]) {
            state = LockedBox((credentials, []))
        }

        var asked: [Asked] { state.withLock { $0.asked } }

        func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition,
                                                                URLCredential?) -> Void) {
            let space = challenge.protectionSpace
            guard space.isProxy() else { return completionHandler(.performDefaultHandling, nil) }
            let next = state.withLock { state -> URLCredential? in
                state.asked.append(Asked(method: space.authenticationMethod, type: space.proxyType, realm: space.realm,
                                         failures: challenge.previousFailureCount))
                return state.credentials.isEmpty ? nil : state.credentials.removeFirst()
            }
            completionHandler(next == nil ? .performDefaultHandling : .useCredential, next)
        }
    }

    static let good = URLCredential(user: "alice", password: "secret", persistence: .forSession)
    static let bad = URLCredential(user: "alice", password: "wrong", persistence: .forSession)

    @Test(arguments: [false, true])
    func aPlainRequestsProxyChallengeIsAnsweredByTheDelegate(_ digest: Bool) async throws {
        let origin = try NginxServer(files: ProxyTests.file)
        let squid = try SquidProxy(users: ["alice": "secret"], digest: digest)
        let answerer = ProxyAnswerer([Self.bad, Self.good])
        let url = "\(origin.baseURL)/hello.bin"
        let outcome = try await ProxyTests.load(url, ProxyTests.httpProxy(squid.port), delegate: answerer).get()
        #expect(outcome.status == 200)
        #expect(outcome.body == "hello through the proxy\n")
        let method = digest ? NSURLAuthenticationMethodHTTPDigest : NSURLAuthenticationMethodHTTPBasic
        #expect(answerer.asked == [
            .init(method: method, type: NSURLProtectionSpaceHTTPProxy, realm: "fwnetworking", failures: 0),
            .init(method: method, type: NSURLProtectionSpaceHTTPProxy, realm: "fwnetworking", failures: 1),
        ])
        #expect(squid.logged("GET \(url) 200 alice"), "\(squid.accessLog)")
    }

    @Test(arguments: [false, true])
    func aTunnelsProxyChallengeIsAnsweredByTheDelegate(_ digest: Bool) async throws {
        let origin = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        let squid = try SquidProxy(users: ["alice": "secret"], digest: digest)
        let answerer = ProxyAnswerer([Self.good])
        let outcome = try await ProxyTests.load("https://127.0.0.1:\(origin.port)/", ProxyTests.httpProxy(squid.port),
                                                delegate: answerer).get()
        #expect(outcome.body.contains("s_server"))
        let method = digest ? NSURLAuthenticationMethodHTTPDigest : NSURLAuthenticationMethodHTTPBasic
        #expect(answerer.asked == [
            .init(method: method, type: NSURLProtectionSpaceHTTPSProxy, realm: "fwnetworking", failures: 0),
        ])
        #expect(squid.logged("CONNECT 127.0.0.1:\(origin.port) 200 alice"), "\(squid.accessLog)")
    }

    @Test func unansweredTheTunnelFailsAndThePlainRequestGetsThe407() async throws {
        let origin = try NginxServer(files: ProxyTests.file)
        let squid = try SquidProxy(users: ["alice": "secret"], digest: true)
        let plain = ProxyAnswerer([Self.bad])
        let outcome = try await ProxyTests.load("\(origin.baseURL)/hello.bin", ProxyTests.httpProxy(squid.port),
                                                delegate: plain).get()
        #expect(outcome.status == 407)
        #expect(plain.asked.map(\.failures) == [0, 1])

        let tls = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        let tunnel = ProxyAnswerer([])
        let result = try await ProxyTests.load("https://127.0.0.1:\(tls.port)/", ProxyTests.httpProxy(squid.port),
                                               delegate: tunnel)
        let error: URLError? = if case .failure(let error) = result { error } else { nil }
        #expect(error?.code == .userAuthenticationRequired, "\(result)")
        #expect(tunnel.asked.map(\.failures) == [0])
    }

    @Test func theConfiguredCredentialsAnswerADigestProxyByDefault() async throws {
        let origin = try NginxServer(files: ProxyTests.file)
        let squid = try SquidProxy(users: ["alice": "secret"], digest: true)
        let url = "\(origin.baseURL)/hello.bin"
        let proxies = ProxyTests.httpProxy(squid.port, user: "alice", password: "secret")
        let outcome = try await ProxyTests.load(url, proxies).get()
        #expect(outcome.body == "hello through the proxy\n")
        #expect(squid.logged("GET \(url) 200 alice"), "\(squid.accessLog)")
    }

    @Test(arguments: ["--proxy-digest", "--proxy-anyauth"])
    func fwcurlAnswersADigestProxy(_ flag: String) throws {
        let origin = try NginxServer(files: ProxyTests.file)
        let squid = try SquidProxy(users: ["alice": "secret"], digest: true)
        let tls = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        let url = "\(origin.baseURL)/hello.bin"
        let run = try Fwcurl.run([flag, "-x", squid.url(), "-U", "alice:secret", url], environment: [:])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "hello through the proxy\n")
        let tunnelled = try Fwcurl.run([flag, "-k", "-x", squid.url(), "-U", "alice:secret",
                                        "https://127.0.0.1:\(tls.port)/"], environment: [:])
        #expect(tunnelled.status == 0, "\(tunnelled.stderr)")
        #expect(tunnelled.text.contains("s_server"))
        let refused = try Fwcurl.run([flag, "-f", "-x", squid.url(), "-U", "alice:wrong", url], environment: [:])
        #expect(refused.status == 22, "\(refused.stderr)")
    }

    @Test func aSOCKS5ProxyStillGetsTheCredentialsWithProxyAnyauth() throws {
        let origin = try NginxServer(files: ProxyTests.file)
        let socks = try MicrosocksProxy(user: "bob", password: "pw")
        let run = try Fwcurl.run(["--proxy-anyauth", "-x", "socks5h://127.0.0.1:\(socks.port)", "-U", "bob:pw",
                                  "\(origin.baseURL)/hello.bin"], environment: [:])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "hello through the proxy\n")
    }
}
