import Foundation
import FWTransport
@testable import FWURLSession
import Testing

// Policy 5 without a proxy: a plain 407 and a tunnel's refusal ask for the proxy's space, the answer is kept
// for that proxy only, and a tunnel nobody answers fails with its error.
@Suite struct ProxyAuthenticationHopPolicyTests {
    private static let proxy = ProxyServer(kind: .http, host: "proxy.test", port: 3128,
                                           credentials: ProxyCredentials(user: "cfg", password: "pw"))
    private static let basic = "Basic realm=\"p\""
    private static let digest = "Digest realm=\"dp\", nonce=\"n\""

    private static func hop(_ url: String, proxy: ProxyServer? = proxy) -> Hop {
        var hop = Hop(request: HopFixtures.request(url))
        hop.proxy = proxy
        return hop
    }

    private static func tunnelRefusal(_ challenges: [String]) -> TransportError {
        .proxyFailed(.authenticationRequired("407", proxyAuthenticate: challenges))
    }

    private static let tunnelError = URLError(.userAuthenticationRequired, url: URL(string: "https://a.test/"),
                                              description: "the proxy wants credentials")

    @Test(arguments: [
        ("http://a.test/x", proxy, 407, basic, "ask(challenge Basic p failures=0 proposed=-)"),
        ("http://a.test/x", proxy, 407, digest, "ask(challenge Digest dp failures=0 proposed=cfg)"),
        ("http://a.test/x", nil, 407, basic, "continue"),
        ("http://a.test/x", proxy, 401, basic, "continue"),
        ("https://a.test/x", proxy, 407, basic, "continue"),
    ] as [(String, ProxyServer?, Int, String, String)])
    func decide(_ url: String, _ proxy: ProxyServer?, _ status: Int, _ challenge: String, _ expected: String) {
        var state = TaskPolicyState()
        let response = HopFixtures.response(url, status: status, [("Proxy-Authenticate", challenge)])
        let decision = ProxyAuthenticationHopPolicy.decide(Self.hop(url, proxy: proxy), response, &state,
                                                           HopFixtures.configuration())
        #expect(decision.summary == expected)
        if case .ask(.challenge(let asked)) = decision {
            #expect(asked.space.proxyType == NSURLProtectionSpaceHTTPProxy)
            #expect(asked.error == nil)
        }
    }

    @Test func aTunnelsRefusalAsksAndItsAnswerIsKeptForThatProxy() throws {
        var state = TaskPolicyState()
        let configuration = HopFixtures.configuration()
        let hop = Self.hop("https://a.test/x")
        let decision = ProxyAuthenticationHopPolicy.failed(hop, Self.tunnelRefusal([Self.basic]),
                                                           mapped: Self.tunnelError, &state, configuration)
        guard case .ask(.challenge(let challenge)) = decision else { throw Unexpected() }
        #expect(challenge.space.proxyType == NSURLProtectionSpaceHTTPSProxy)
        #expect(challenge.error?.code == .userAuthenticationRequired)
        #expect(challenge.proxy?.method == "CONNECT")
        #expect(challenge.proxy?.uri == "a.test:443")

        let answered = ProxyAuthenticationHopPolicy.resolve(
            challenge, .useCredential, URLCredential(user: "u", password: "p", persistence: .forSession), hop,
            &state, configuration)
        #expect(answered.summary == "replace(proxyAuthentication GET https://a.test/x)")
        #expect(ProxyAuthenticationHopPolicy.authorization(for: Self.proxy, state) == "Basic dTpw")
        let other = ProxyServer(kind: .http, host: "other.test", port: 3128)
        #expect(ProxyAuthenticationHopPolicy.authorization(for: other, state) == nil)
        #expect(ProxyAuthenticationHopPolicy.authorization(for: nil, state) == nil)

        ProxyAuthenticationHopPolicy.observe(HopFixtures.response("https://a.test/x"), &state, configuration)
        #expect(state.proxyAuthentication == nil)
        #expect(configuration.urlCredentialStorage?.credentials(for: challenge.space)?["u"] != nil)
    }

    struct Unexpected: Error {}

    @Test(arguments: [
        (URLSession.AuthChallengeDisposition.performDefaultHandling, true, "fail(-1013)"),
        (.performDefaultHandling, false, "continue"),
        (.rejectProtectionSpace, true, "fail(-1013)"),
        (.cancelAuthenticationChallenge, true, "cancelTask"),
    ])
    func nobodyAnswers(_ disposition: URLSession.AuthChallengeDisposition, _ tunnel: Bool, _ expected: String) throws {
        var state = TaskPolicyState()
        let configuration = HopFixtures.configuration()
        let url = tunnel ? "https://a.test/x" : "http://a.test/x"
        let hop = Self.hop(url)
        let decision = tunnel
            ? ProxyAuthenticationHopPolicy.failed(hop, Self.tunnelRefusal([Self.basic]), mapped: Self.tunnelError,
                                                  &state, configuration)
            : ProxyAuthenticationHopPolicy.decide(
                hop, HopFixtures.response(url, status: 407, [("Proxy-Authenticate", Self.basic)]), &state,
                configuration)
        guard case .ask(.challenge(let challenge)) = decision else { throw Unexpected() }
        let answered = ProxyAuthenticationHopPolicy.resolve(challenge, disposition, nil, hop, &state, configuration)
        #expect(answered.summary == expected)
    }

    @Test func aFailureOtherThanATunnelsRefusalIsLeftToTheOthers() {
        var state = TaskPolicyState()
        let decision = ProxyAuthenticationHopPolicy.failed(
            Self.hop("https://a.test/x"), .timedOut("slow"), mapped: URLError(.timedOut), &state,
            HopFixtures.configuration())
        #expect(decision.summary == "continue")
    }
}
