// MARK: - ConnectionKey

/// Which connections can serve a request: the pool keeps one per-host limit, one waiter queue and one
/// idle list for each key. Client identities are not part of the key: as on Apple platforms, tasks that
/// present different client certificates to one origin may share a connection.
public struct ConnectionKey: Hashable, Sendable, CustomStringConvertible {
    /// "http" or "https", lowercased.
    public var scheme: String
    /// The host as it appears in the URL (name or numeric address, without IPv6 brackets), lowercased.
    public var host: String
    /// The port, explicit or the scheme's default.
    public var port: Int

    /// Creates a key; scheme and host are lowercased so that equal origins share connections.
    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
    }

    /// The port a scheme uses when a URL names none: 443 for https (and wss), 80 otherwise. The one
    /// default-port rule of the project.
    public static func defaultPort(forScheme scheme: String) -> Int {
        switch scheme.lowercased() {
        case "https", "wss": return 443
        default: return 80
        }
    }

    /// Whether `port` is the scheme's default (then `Host` and the origin leave it out).
    public var usesDefaultPort: Bool { port == Self.defaultPort(forScheme: scheme) }

    /// "http://host:port".
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }
}

/// Identifies one connection inside a transport (never reused).
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The raw number, unique per transport.
    public let rawValue: UInt64

    /// Wraps a raw number.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// "C12".
    public var description: String { "C\(rawValue)" }
}

/// Identifies one request inside a transport (a retry keeps its id).
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// The raw number, unique per transport.
    public let rawValue: UInt64

    /// Wraps a raw number.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// "R12".
    public var description: String { "R\(rawValue)" }
}
