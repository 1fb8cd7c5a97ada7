@testable import FWTransport
import FWWire
import Testing

// How a request's head is completed for where it goes: direct, to an HTTP proxy in absolute form, or
// through a tunnel — and `Proxy-Authorization` never reaching an origin.
@Suite struct PreparedRequestProxyTests {
    static let alice = ProxyCredentials(user: "alice", password: "secret")

    struct Row: Sendable, CustomTestStringConvertible {
        let why: String
        let key: ConnectionKey
        let head: String
        var testDescription: String { why }
    }

    static let rows = [
        Row(why: "direct", key: ConnectionKey(scheme: "http", host: "example.org", port: 80),
            head: "GET /a?b HTTP/1.1\r\nHost: example.org\r\n\r\n"),
        Row(why: "an HTTP proxy: absolute form with its credentials",
            key: ConnectionKey(scheme: "http", host: "example.org", port: 8080,
                               proxy: ProxyServer(kind: .http, host: "proxy", port: 3128, credentials: alice)),
            head: "GET http://example.org:8080/a?b HTTP/1.1\r\nHost: example.org:8080\r\n"
                + "Proxy-Authorization: Basic YWxpY2U6c2VjcmV0\r\n\r\n"),
        Row(why: "an HTTP proxy for IPv6, no credentials",
            key: ConnectionKey(scheme: "http", host: "::1", port: 80,
                               proxy: ProxyServer(kind: .http, host: "p", port: 1)),
            head: "GET http://[::1]/a?b HTTP/1.1\r\nHost: [::1]\r\n\r\n"),
        Row(why: "HTTPS through an HTTP proxy goes in a tunnel: origin form",
            key: ConnectionKey(scheme: "https", host: "example.org", port: 443,
                               proxy: ProxyServer(kind: .http, host: "proxy", port: 3128, credentials: alice)),
            head: "GET /a?b HTTP/1.1\r\nHost: example.org\r\n\r\n"),
        Row(why: "SOCKS5: origin form, no proxy fields",
            key: ConnectionKey(scheme: "http", host: "example.org", port: 80,
                               proxy: ProxyServer(kind: .socks5, host: "socks", port: 1080, credentials: alice)),
            head: "GET /a?b HTTP/1.1\r\nHost: example.org\r\n\r\n"),
    ]

    @Test(arguments: rows)
    func headsFollowTheRoute(_ row: Row) throws {
        var headers = HTTPHeaders()
        headers.add(name: "Proxy-Authorization", value: "Basic set-by-the-caller")
        let head = HTTPRequestHead(method: "GET", target: "/a?b", headers: headers)
        let request = TransportRequest(key: row.key, head: head)
        let prepared = try PreparedRequest(id: RequestID(1), request: request, delegate: StubRequests.Sink())
        #expect(String(decoding: prepared.encodedHead, as: UTF8.self) == row.head)
    }

    @Test func keysTellTheRouteAndNeverShowCredentials() {
        let socks = ProxyServer(kind: .socks5RemoteResolution, host: "Socks.Test", port: 1080, credentials: Self.alice)
        let key = ConnectionKey(scheme: "https", host: "example.org", port: 443, proxy: socks)
        #expect(key.description == "https://example.org:443 via socks5h://socks.test:1080")
        #expect(key.needsTunnel && !key.usesAbsoluteForm)
        #expect(key != ConnectionKey(scheme: "https", host: "example.org", port: 443), "direct and proxied never share")
        #expect(!"\(key) \(socks) \(Self.alice)".contains("secret"))
        let http = ConnectionKey(scheme: "http", host: "example.org", port: 80,
                                 proxy: ProxyServer(kind: .http, host: "p", port: 1))
        #expect(http.usesAbsoluteForm && !http.needsTunnel)
    }
}
