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
    /// default); nil without a scheme or a host. The one place a URL becomes a connection key. `scheme`: the
    /// scheme of `url`, lowercased, when the caller read it already (it is read only once: the URL's accessors
    /// parse) and `url` has no base URL.
    init?(url: URL, scheme knownScheme: String? = nil) {
        let absolute = url.baseURL == nil ? url : url.absoluteURL
        guard let scheme = knownScheme ?? absolute.scheme, var host = absolute.host(percentEncoded: false), !host.isEmpty else {
            return nil
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.init(scheme: scheme, host: host, port: absolute.port ?? Self.defaultPort(forScheme: scheme))
    }
}
