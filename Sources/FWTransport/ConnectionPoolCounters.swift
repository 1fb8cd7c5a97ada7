// MARK: - ConnectionPoolCounters

/// How many connections a pool holds for one origin, and how many requests wait for one (for tooling and
/// tests; `URLSession.connectionPoolCounters(for:)` returns it). The pool's own count, not a copy.
public struct ConnectionPoolCounters: Equatable, Sendable {
    /// Connections being established.
    public var connecting: Int
    /// Established connections waiting for a request.
    public var idle: Int
    /// Connections carrying a request.
    public var leased: Int
    /// Requests waiting for a connection.
    public var waiting: Int

    /// Counts as given (all zero by default).
    public init(connecting: Int = 0, idle: Int = 0, leased: Int = 0, waiting: Int = 0) {
        self.connecting = connecting
        self.idle = idle
        self.leased = leased
        self.waiting = waiting
    }

    /// `connecting + idle + leased`: never more than the per-host limit.
    public var open: Int { connecting + idle + leased }
}
