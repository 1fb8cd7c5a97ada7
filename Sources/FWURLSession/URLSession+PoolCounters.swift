import Foundation
import FWTransport

// MARK: - Connection pool counters (FWNetworking addition)

extension URLSession {
    /// The pool's counts for the origin (scheme, host, port) of `url` and the proxy the session reaches it
    /// through, for tooling and tests.
    public func connectionPoolCounters(for url: URL) -> ConnectionPoolCounters {
        guard let transport, var key = ConnectionKey(url: url) else { return ConnectionPoolCounters() }
        key.proxy = try? proxySettings.proxy(for: url, scheme: key.scheme, host: key.host, port: key.port)
        return transport.counters(for: key)
    }
}

// MARK: - ConnectionKey from a URL

extension ConnectionKey {
    /// The key of `url`'s origin: scheme, host (IPv6 brackets removed) and port (explicit, else the scheme's
    /// default); nil without a scheme or a host. The one place a URL becomes a connection key.
    init?(url: URL) {
        self.init(URLParts(url))
    }

    /// The key of the origin in `parts`; nil without a scheme or a host.
    init?(_ parts: URLParts) {
        guard let scheme = parts.scheme, let host = parts.host, !host.isEmpty else { return nil }
        self.init(lowercasedScheme: scheme, host: host, port: parts.port ?? Self.defaultPort(forScheme: scheme))
    }
}
