import FWLoop

// MARK: - ConnectionKey

/// Which connections can serve a request: the pool keeps one per-host limit, one waiter queue and one
/// idle list for each key. The key is the origin and the proxy it is reached through (none, or one with
/// its credentials), so a tunnel to an origin never serves a direct request to it nor one through another
/// proxy. Client identities are not part of the key: as on Apple platforms, tasks that present different
/// client certificates to one origin may share a connection.
public struct ConnectionKey: Hashable, Sendable, CustomStringConvertible {
    /// "http" or "https", lowercased.
    public var scheme: String
    /// The host as it appears in the URL (name or numeric address, without IPv6 brackets), lowercased.
    public var host: String {
        didSet { hostHash = host.hashValue }
    }
    /// The port, explicit or the scheme's default.
    public var port: Int
    /// The proxy the origin is reached through, or nil for a direct connection.
    public var proxy: ProxyServer? {
        get { proxyBox?.server }
        set { proxyBox = newValue.map(ProxyBox.init) }
    }
    /// Requests whose keys differ only here never share a connection. 0 for every ordinary request; a raw
    /// request (`TransportRequest.rawBytes`) takes a number of its own, so it always opens a new connection.
    public var partition: UInt64 = 0

    /// `host.hashValue`, taken once per key: the pool looks a request's key up two to six times (a new
    /// connection the most), and hashing the host's bytes each time took some 200 instructions a lookup.
    private var hostHash: Int

    /// The proxy, boxed: a `ProxyServer` is about 90 bytes, and the key is copied, hashed and compared several
    /// times per request (inline, it made each copy of the key and each comparison copy the proxy too).
    private var proxyBox: ProxyBox?

    private final class ProxyBox: Sendable {
        let server: ProxyServer
        init(_ server: ProxyServer) { self.server = server }
    }

    /// Hashes the host, the port and the partition: the pool looks its key up several times per request, and
    /// the scheme and the proxy (its host, credentials and answer to a challenge) cost each lookup to hash
    /// while they rarely tell two keys of one session apart. `==` still compares every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hostHash)
        hasher.combine(port)
        hasher.combine(partition)
    }

    /// The hash the pool's tables use: the host's hash (a `Hasher`'s, seeded per process, so a peer that
    /// names hosts in redirects cannot choose collisions) mixed with the port and the partition as
    /// `TransportIDHash` mixes ids, without a second pass of SipHash per lookup.
    public func _rawHashValue(seed: Int) -> Int {
        TransportIDHash.mix(UInt64(truncatingIfNeeded: hostHash) ^ UInt64(truncatingIfNeeded: port) &* 0x1_0000_0001
                                ^ partition &* 0xFF51_AFD7_ED55_8CCD,
                            seed: seed)
    }

    /// Equal when every field is; the numbers are compared first, and one boxed proxy is equal to itself.
    public static func == (lhs: ConnectionKey, rhs: ConnectionKey) -> Bool {
        guard lhs.port == rhs.port, lhs.partition == rhs.partition, lhs.host == rhs.host, lhs.scheme == rhs.scheme
        else { return false }
        switch (lhs.proxyBox, rhs.proxyBox) {
        case (nil, nil): return true
        case (let left?, let right?): return left === right || left.server == right.server
        case (nil, _?), (_?, nil): return false
        }
    }

    /// Creates a key; scheme and host are lowercased so that equal origins share connections.
    public init(scheme: String, host: String, port: Int, proxy: ProxyServer? = nil) {
        self.init(lowercasedScheme: scheme.lowercased(), host: host.lowercased(), port: port, proxy: proxy)
    }

    /// Creates a key from a scheme and a host its caller lowercased already (a request's URL is read once).
    public init(lowercasedScheme scheme: String, host: String, port: Int, proxy: ProxyServer? = nil) {
        self.scheme = scheme
        self.host = host
        hostHash = host.hashValue
        self.port = port
        self.proxyBox = proxy.map(ProxyBox.init)
    }

    /// The port a scheme uses when a URL names none: 443 for https (and wss), 80 otherwise. The one
    /// default-port rule of the project.
    public static func defaultPort(forScheme scheme: String) -> Int {
        switch scheme {
        case "https", "wss": return 443
        case "http", "ws": return 80
        default: return ["https", "wss"].contains(scheme.lowercased()) ? 443 : 80
        }
    }

    /// The same origin and proxy with a partition no other key has: a request sent with it opens a new
    /// connection (a raw request's).
    public func isolated() -> ConnectionKey {
        var key = self
        key.partition = Self.partitions.withLock { next in
            next += 1
            return next
        }
        return key
    }

    /// The last partition handed out by `isolated()`.
    private static let partitions = LockedBox<UInt64>(0)

    /// Whether `port` is the scheme's default (then `Host` and the origin leave it out).
    public var usesDefaultPort: Bool { port == Self.defaultPort(forScheme: scheme) }

    /// Whether the connection speaks TLS with the origin (inside the tunnel, when there is a proxy).
    public var isSecure: Bool { scheme == "https" || scheme == "wss" }

    /// Whether requests go to an HTTP proxy in absolute form (plain HTTP through an HTTP proxy): no tunnel.
    public var usesAbsoluteForm: Bool { proxyBox?.server.kind == .http && !isSecure }

    /// Whether the connection opens a tunnel through its proxy before anything else (CONNECT for HTTPS
    /// through an HTTP proxy, every SOCKS5 connection).
    public var needsTunnel: Bool { proxyBox != nil && !usesAbsoluteForm }

    /// `host:port` of the origin, IPv6 in brackets: a CONNECT request's target and its `Host`.
    public var authority: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(shownHost):\(port)"
    }

    /// "http://host:port", then " via socks5h://proxy:port" through a proxy (credentials never appear).
    public var description: String {
        let origin = partition == 0 ? "\(scheme)://\(authority)" : "\(scheme)://\(authority) #\(partition)"
        guard let proxy else { return origin }
        return "\(origin) via \(proxy)"
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

    /// The hash the pool's and the transport's tables use (`TransportIDHash`).
    public func _rawHashValue(seed: Int) -> Int { TransportIDHash.mix(rawValue, seed: seed) }
}

/// Identifies one request inside a transport (a retry keeps its id).
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// The raw number, unique per transport.
    public let rawValue: UInt64

    /// Wraps a raw number.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// "R12".
    public var description: String { "R\(rawValue)" }

    /// The hash the pool's and the transport's tables use (`TransportIDHash`).
    public func _rawHashValue(seed: Int) -> Int { TransportIDHash.mix(rawValue, seed: seed) }
}

/// How `ConnectionID` and `RequestID` hash in a `Dictionary` or `Set`. Both are numbers a transport counts
/// up, never values a peer chooses, so their tables need no SipHash: it took some 130 instructions per
/// lookup, and a keep-alive request makes about ten. A table's bucket is the hash's low bits, and a multiply
/// by an odd constant maps the low bits one to one: the ids alive at once, a run of consecutive numbers
/// shorter than the table, never share a bucket. Equal ids hash equally; `hash(into:)` stays the standard
/// one for callers that feed a `Hasher` themselves.
enum TransportIDHash {
    @inline(__always)
    static func mix(_ value: UInt64, seed: Int) -> Int {
        Int(truncatingIfNeeded: (value ^ UInt64(truncatingIfNeeded: seed)) &* 0x9E37_79B9_7F4A_7C15)
    }
}
