import Foundation
import FWTransport
@testable import FWURLSession
import Testing

// Which proxy a request takes: from the CFNetwork dictionary, or from the environment as curl reads it.
@Suite struct ProxySettingsTests {
    static let alice = ProxyCredentials(user: "alice", password: "p@ss word")

    static func proxy(_ settings: ProxySettings, _ url: String) throws -> ProxyServer? {
        let url = try #require(URL(string: url))
        let key = try #require(ConnectionKey(url: url))
        return try settings.proxy(for: url, scheme: key.scheme, host: key.host, port: key.port)
    }

    // MARK: The environment

    struct EnvironmentRow: Sendable, CustomTestStringConvertible {
        let why: String
        let environment: [String: String]
        let url: String
        let proxy: ProxyServer?
        var testDescription: String { why }
    }

    static let environmentRows = [
        EnvironmentRow(why: "http_proxy for http", environment: ["http_proxy": "proxy.test:3128"],
                       url: "http://example.org/", proxy: ProxyServer(kind: .http, host: "proxy.test", port: 3128)),
        EnvironmentRow(why: "http_proxy is not for https", environment: ["http_proxy": "proxy.test:3128"],
                       url: "https://example.org/", proxy: nil),
        EnvironmentRow(why: "https_proxy, default port, credentials decoded",
                       environment: ["HTTPS_PROXY": "http://alice:p%40ss%20word@Proxy.Test"],
                       url: "https://example.org/",
                       proxy: ProxyServer(kind: .http, host: "proxy.test", port: 1080, credentials: alice)),
        EnvironmentRow(why: "all_proxy for any scheme", environment: ["ALL_PROXY": "socks5h://[::1]:1081"],
                       url: "https://example.org/",
                       proxy: ProxyServer(kind: .socks5RemoteResolution, host: "::1", port: 1081)),
        EnvironmentRow(why: "the scheme's proxy wins over all_proxy",
                       environment: ["all_proxy": "socks5://s:1", "http_proxy": "h:2"], url: "http://example.org/",
                       proxy: ProxyServer(kind: .http, host: "h", port: 2)),
        EnvironmentRow(why: "lowercase wins", environment: ["http_proxy": "lower:1", "HTTP_PROXY": "upper:2"],
                       url: "http://example.org/", proxy: ProxyServer(kind: .http, host: "lower", port: 1)),
        EnvironmentRow(why: "HTTP_PROXY outside CGI", environment: ["HTTP_PROXY": "upper:2"],
                       url: "http://example.org/", proxy: ProxyServer(kind: .http, host: "upper", port: 2)),
        EnvironmentRow(why: "HTTP_PROXY ignored under CGI (httpoxy)",
                       environment: ["HTTP_PROXY": "evil:2", "REQUEST_METHOD": "GET"], url: "http://example.org/",
                       proxy: nil),
        EnvironmentRow(why: "http_proxy still read under CGI",
                       environment: ["http_proxy": "good:1", "REQUEST_METHOD": "GET"], url: "http://example.org/",
                       proxy: ProxyServer(kind: .http, host: "good", port: 1)),
        EnvironmentRow(why: "no_proxy exempts", environment: ["http_proxy": "h:2", "NO_PROXY": "example.org"],
                       url: "http://www.example.org/", proxy: nil),
        EnvironmentRow(why: "an empty value is unset", environment: ["http_proxy": "", "HTTP_PROXY": "h:2"],
                       url: "http://example.org/", proxy: ProxyServer(kind: .http, host: "h", port: 2)),
    ]

    @Test(arguments: environmentRows)
    func environment(_ row: EnvironmentRow) throws {
        #expect(try Self.proxy(ProxySettings(environment: row.environment), row.url) == row.proxy)
    }

    @Test func anUnusableProxyFailsTheRequestInsteadOfGoingDirect() throws {
        let settings = ProxySettings(environment: ["https_proxy": "socks4://old:1080"])
        #expect(throws: URLError.self) { try Self.proxy(settings, "https://example.org/") }
        #expect(try Self.proxy(settings, "http://example.org/") == nil)
    }

    // MARK: The dictionary

    @Test func theDictionaryNamesAProxyPerScheme() throws {
        let settings = ProxySettings(dictionary: [
            kCFNetworkProxiesHTTPEnable: 1, kCFNetworkProxiesHTTPProxy: "h.test", kCFNetworkProxiesHTTPPort: 3128,
            kCFNetworkProxiesHTTPSEnable: true, kCFNetworkProxiesHTTPSProxy: "s.test",
            kCFNetworkProxiesHTTPSPort: NSNumber(value: 3129),
            kCFProxyUsernameKey: "alice", kCFProxyPasswordKey: "p@ss word",
            kCFNetworkProxiesExceptionsList: ["*.internal", "10.0.0.0/8"],
        ])
        #expect(try Self.proxy(settings, "http://example.org/")
                    == ProxyServer(kind: .http, host: "h.test", port: 3128, credentials: Self.alice))
        #expect(try Self.proxy(settings, "https://example.org/")
                    == ProxyServer(kind: .http, host: "s.test", port: 3129, credentials: Self.alice))
        #expect(try Self.proxy(settings, "https://db.internal/") == nil)
        #expect(try Self.proxy(settings, "http://10.1.1.1/") == nil)
    }

    @Test func socksServesSchemesWithoutTheirOwnProxy() throws {
        let socks: [AnyHashable: Any] = [
            kCFNetworkProxiesSOCKSEnable: 1, kCFNetworkProxiesSOCKSProxy: "socks.test",
            kCFStreamPropertySOCKSUser: "bob", kCFStreamPropertySOCKSPassword: "pw",
            kCFNetworkProxiesHTTPEnable: 0, kCFNetworkProxiesHTTPProxy: "unused",
            kCFNetworkProxiesExcludeSimpleHostnames: true,
        ]
        let bob = ProxyCredentials(user: "bob", password: "pw")
        #expect(try Self.proxy(ProxySettings(dictionary: socks), "http://example.org/")
                    == ProxyServer(kind: .socks5RemoteResolution, host: "socks.test", port: 1080, credentials: bob))
        #expect(try Self.proxy(ProxySettings(dictionary: socks), "http://intranet/") == nil)
        var local = socks
        local[kFWNetworkProxiesSOCKSResolvesNamesLocally] = "yes"
        #expect(try Self.proxy(ProxySettings(dictionary: local), "https://example.org/")?.kind == .socks5)
    }

    @Test func anEnabledProxyWithoutAHostFailsItsRequests() {
        let settings = ProxySettings(dictionary: [kCFNetworkProxiesHTTPSEnable: 1])
        #expect(throws: URLError.self) { try Self.proxy(settings, "https://example.org/") }
    }

    @Test func anEmptyDictionaryMeansDirectWhateverTheEnvironmentSays() {
        let configuration = URLSessionConfiguration.default
        configuration.connectionProxyDictionary = [:]
        #expect(ProxySettings(configuration: configuration) == .direct)
    }
}
