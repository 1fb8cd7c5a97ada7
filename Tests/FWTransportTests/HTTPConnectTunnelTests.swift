@testable import FWTransport
import FWWire
import Testing

// RFC 9110 §9.3.6 CONNECT as rows: the request the exchange sends, the proxy's answers, run four ways by
// TunnelHarness.
@Suite struct HTTPConnectTunnelTests {
    static let alice = ProxyCredentials(user: "alice", password: "secret")
    static let connect = Array("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n".utf8)
    static let answered = Array(("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n"
                                 + "Proxy-Authorization: Basic YWxpY2U6c2VjcmV0\r\n\r\n").utf8)
    static let ok = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)

    static func make(credentials: ProxyCredentials? = nil, authorization: String? = nil)
        -> @Sendable () -> ProxyTunnel {
        { .connect(HTTPConnectTunnel(authority: "example.org:443", credentials: credentials,
                                     authorization: authorization)) }
    }

    /// A 407 failure carrying the Basic challenge of `challenge()`.
    static func refusal(_ detail: String, _ offered: [String] = ["Basic realm=\"fw\""]) -> ProxyTunnelAction {
        .failed(.authenticationRequired(detail, proxyAuthenticate: offered))
    }

    static func answer(_ text: String, _ then: ProxyTunnelAction) -> TunnelStep {
        TunnelStep(answer: Array(text.utf8), then: then)
    }

    static func challenge(_ scheme: String = "Basic realm=\"fw\"", close: Bool = false) -> String {
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: \(scheme)\r\n"
            + (close ? "Connection: close\r\n" : "") + "Content-Length: 4\r\n\r\ndeny"
    }


    static let cases: [TunnelCase] = [
        TunnelCase(name: "200 opens the tunnel", make: make(), first: connect,
                   steps: [TunnelStep(answer: ok, then: .established(leftover: []))]),
        TunnelCase(name: "a 2xx has no body whatever it says", make: make(), first: connect, steps: [
            answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
                   .established(leftover: [])),
        ]),
        TunnelCase(name: "interim answers are skipped", make: make(), first: connect, steps: [
            answer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 Connection established\r\n\r\n",
                   .established(leftover: [])),
        ]),
        TunnelCase(name: "a Basic challenge is answered once", make: make(credentials: alice), first: connect, steps: [
            answer(challenge(), .write(answered)), TunnelStep(answer: ok, then: .established(leftover: [])),
        ]),
        TunnelCase(name: "a chunked challenge among others", make: make(credentials: alice), first: connect, steps: [
            answer("HTTP/1.1 407 No\r\nProxy-Authenticate: Negotiate, Digest realm=\"a\"\r\n"
                   + "Proxy-Authenticate: basic realm=\"fw\"\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nno\r\n0\r\n\r\n",
                   .write(answered)),
            TunnelStep(answer: ok, then: .established(leftover: [])),
        ]),
        TunnelCase(name: "credentials refused", make: make(credentials: alice), first: connect, steps: [
            answer(challenge(), .write(answered)),
            answer(challenge(), refusal("the proxy rejected the credentials for the tunnel to example.org:443")),
        ]),
        TunnelCase(name: "a challenge without credentials", make: make(), first: connect, steps: [
            answer(challenge(), refusal("the proxy requires credentials for the tunnel to example.org:443")),
        ]),
        TunnelCase(name: "a challenge in a scheme the tunnel does not speak", make: make(credentials: alice),
                   first: connect,
                   steps: [answer(challenge("Digest realm=\"fw\", nonce=\"1\""), refusal(
                       "the proxy asks for an authentication scheme the tunnel does not speak: "
                       + "Digest realm=\"fw\", nonce=\"1\"", ["Digest realm=\"fw\", nonce=\"1\""]))]),
        TunnelCase(name: "a challenge, then the proxy closes", make: make(credentials: alice), first: connect, steps: [
            answer(challenge(close: true), refusal("the proxy closed the connection after asking for credentials")),
        ]),
        TunnelCase(name: "an authorization goes with the first CONNECT", make: make(authorization: "Digest x=1"),
                   first: Array(("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n"
                                 + "Proxy-Authorization: Digest x=1\r\n\r\n").utf8), steps: [
            answer(challenge(), refusal("the proxy rejected the credentials for the tunnel to example.org:443")),
        ]),
        TunnelCase(name: "a refusal", make: make(), first: connect, steps: [
            answer("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n",
                   .failed(.refused("the proxy refused the tunnel to example.org:443: 403 Forbidden"))),
        ]),
        TunnelCase(name: "not an HTTP proxy", make: make(), first: connect, steps: [
            TunnelStep(answer: [5, 0], then: .failed(.malformedReply(
                "the proxy's answer to CONNECT is not valid HTTP: \(HTTPParseError.invalidStatusLine)"))),
        ]),
    ]

    @Test(arguments: cases)
    func exchanges(_ testCase: TunnelCase) {
        TunnelHarness.check(testCase)
    }

    @Test func aCloseBeforeTheAnswerIsARefusal() {
        var tunnel = HTTPConnectTunnel(authority: "[::1]:8443", credentials: nil)
        #expect(tunnel.start() == .write(Array("CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n\r\n".utf8)))
        #expect(tunnel.receive(Array("HTTP/1.1 200".utf8)) == .waitForMore)
        #expect(tunnel.receiveEndOfStream()
                    == .failed(.refused("the proxy closed the connection before the tunnel to [::1]:8443 was open")))
    }

    @Test func bytesAfterAChallengeBeforeTheNextConnectBreakTheProtocol() {
        var tunnel = HTTPConnectTunnel(authority: "example.org:443", credentials: Self.alice)
        _ = tunnel.start()
        #expect(tunnel.receive(Array((Self.challenge() + "HTTP/1.1 200 OK\r\n\r\n").utf8))
                    == .failed(.malformedReply("the proxy sent bytes after its 407 before the next CONNECT")))
    }
}
