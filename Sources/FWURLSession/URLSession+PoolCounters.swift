import Foundation
import FWTransport

// MARK: - Connection pool counters (FWNetworking addition)

/// How many connections a session holds for one origin, and how many tasks wait for one.
public struct ConnectionPoolCounters: Equatable, Sendable {
    /// Connections being established.
    public var connecting: Int
    /// Established connections waiting for a request.
    public var idle: Int
    /// Connections carrying a request.
    public var leased: Int
    /// Requests waiting for a connection.
    public var waiting: Int
    /// `connecting + idle + leased`: never more than `httpMaximumConnectionsPerHost`.
    public var open: Int { connecting + idle + leased }
}

extension URLSession {
    /// The pool's counts for the origin (scheme, host, port) of `url`, for tooling and tests.
    public func connectionPoolCounters(for url: URL) -> ConnectionPoolCounters {
        guard let transport, let scheme = url.scheme, var host = url.host else {
            return ConnectionPoolCounters(connecting: 0, idle: 0, leased: 0, waiting: 0)
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? (scheme.lowercased() == "https" ? 443 : 80)
        let counts = transport.counters(for: ConnectionKey(scheme: scheme, host: host, port: port))
        return ConnectionPoolCounters(connecting: counts.connecting, idle: counts.idle, leased: counts.leased,
                                      waiting: counts.waiting)
    }
}
