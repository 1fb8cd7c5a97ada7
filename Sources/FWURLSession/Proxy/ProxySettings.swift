import Foundation
import FWTransport

// MARK: - ProxySettings

/// Which proxy each request goes through: read once per session from the configuration's
/// `connectionProxyDictionary` (CFNetwork's keys), or, when that is nil, from the environment as curl
/// reads it. For a URL: its scheme's proxy (HTTP for `http`, HTTPS for `https`), else the fallback (SOCKS,
/// or `all_proxy`), unless the host is an exception. A proxy setting that cannot be used (a scheme we do
/// not speak) fails the requests that would go through it, never silently connects directly.
struct ProxySettings: Sendable, Equatable {
    /// A configured proxy, or why it cannot be used.
    enum Entry: Sendable, Equatable {
        case proxy(ProxyServer)
        case invalid(String)
    }

    /// The proxy of `http` URLs.
    var http: Entry?
    /// The proxy of `https` URLs.
    var https: Entry?
    /// The proxy of URLs whose scheme has none.
    var fallback: Entry?
    /// The hosts that go direct.
    var exceptions = NoProxyList(entries: [])
    /// Host names without a dot go direct.
    var excludeSimpleHostnames = false

    /// No proxy at all.
    static let direct = ProxySettings()

    /// The settings a session with `configuration` uses.
    init(configuration: URLSessionConfiguration) {
        if let dictionary = configuration.connectionProxyDictionary {
            self.init(dictionary: dictionary)
        } else {
            self.init(environment: ProcessEnvironment.values(of: Self.environmentNames))
        }
    }

    private init() {}

    /// The proxy `url`'s request goes through (nil: direct). Throws `unsupportedURL` when the proxy
    /// configured for it cannot be used.
    func proxy(for url: URL, scheme: String, host: String, port: Int) throws(URLError) -> ProxyServer? {
        let entry = (scheme == "https" ? https : http) ?? fallback
        guard let entry else { return nil }
        if exceptions.matches(host: host, port: port) { return nil }
        if excludeSimpleHostnames, !host.contains("."), !host.contains(":") { return nil }
        switch entry {
        case .proxy(let proxy):
            return proxy
        case .invalid(let reason):
            throw URLError(.unsupportedURL, url: url, description: reason)
        }
    }

    // MARK: Proxy URLs

    /// A proxy from curl's syntax: `[scheme://][user[:password]@]host[:port]`, scheme `http` (the default),
    /// `socks5` or `socks5h`, port 1080 by default (as curl's), user and password percent-decoded.
    static func entry(proxyURL text: String, name: String) -> Entry {
        let full = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: full), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            return .invalid("the proxy in \(name) is not a URL: \(text)")
        }
        let kind: ProxyServer.Kind
        switch scheme {
        case "http": kind = .http
        case "socks5": kind = .socks5
        case "socks5h": kind = .socks5RemoteResolution
        default: return .invalid("the proxy scheme \(scheme):// in \(name) is not supported (http, socks5, socks5h)")
        }
        var credentials: ProxyCredentials?
        if let user = components.percentEncodedUser?.removingPercentEncoding {
            let password = components.percentEncodedPassword?.removingPercentEncoding ?? ""
            credentials = ProxyCredentials(user: user, password: password)
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return .proxy(ProxyServer(kind: kind, host: bare, port: components.port ?? defaultPort,
                                  credentials: credentials))
    }

    /// The port of a proxy that names none (curl's default).
    static let defaultPort = 1080
}
