// MARK: - Event trace facts of the transport
//
// What a traced request (`TransportRequest.tracesBytes`) learns beyond its bytes, for the session's JSON event
// trace: how the pool served it and, on a new connection, how that connection was made. They ride on the
// `.connected` event (`ConnectionInfo.trace`), so tracing adds no event kind and no second path; a request
// that is not traced never builds them (one `if` on the request path).

/// How the pool served a request when it was enqueued: an idle connection (`reused`), a connection opened for
/// it (`new`), or a place in the queue because the per-host limit was reached (`waited`). A retry is enqueued
/// again and gets a decision of its own.
public struct PoolDecision: Hashable, Sendable, CustomStringConvertible {
    /// "new", "reused" or "waited".
    public let name: String

    /// An idle connection was leased at once.
    public static let reused = PoolDecision(name: "reused")
    /// A new connection was opened for the request.
    public static let new = PoolDecision(name: "new")
    /// The request queued: the per-host limit was reached, it waits for a connection to free up.
    public static let waited = PoolDecision(name: "waited")

    /// The name.
    public var description: String { name }

    private init(name: String) {
        self.name = name
    }

    /// The decision the pool's answer to an enqueue stands for.
    init(_ action: ConnectionPoolStateMachine.Action) {
        if case .execute = action.request {
            self = .reused
        } else if case .none = action.connection {
            self = .waited
        } else {
            self = .new
        }
    }
}

/// The trace facts of one request on its connection (a class: `ConnectionInfo` stays one word larger, and
/// only traced requests allocate it).
public final class ConnectionTrace: Sendable {
    /// How the pool served the request (nil when the transport no longer knew the request).
    public let poolDecision: PoolDecision?
    /// How the connection was made (lookup, connect and TLS times on the loop clock, addresses, what TLS
    /// negotiated): only on the first request of a new connection.
    public let establishment: TransportMetrics?

    init(poolDecision: PoolDecision?, establishment: TransportMetrics?) {
        self.poolDecision = poolDecision
        self.establishment = establishment
    }
}

extension HTTPTransport {
    /// How the pool served request `id` at its last enqueue (for the trace of a traced request).
    func poolDecision(of id: RequestID) -> PoolDecision? {
        state.withLock { $0.updateEntry(id) { $0.poolDecision } ?? nil }
    }
}

extension HTTPTransport {
    /// Whether the request connection `id` is being made for is traced: its TLS handshake then records its
    /// messages (one lock per new TLS connection; nothing is recorded for an untraced one).
    func tracesEstablishment(of id: ConnectionID) -> Bool {
        state.withLock { state in
            state.pool.waiter(for: id).flatMap { state.entries[$0] }?.prepared.request.tracesBytes ?? false
        }
    }
}

extension HTTP1Connection {
    /// The `.connected` event's facts for `request`; with the trace facts when the request is traced.
    func connectionInfo(for request: PreparedRequest) -> ConnectionInfo {
        var info = ConnectionInfo(id: id, isReused: machine.isReused, localAddress: addresses.local,
                                  remoteAddress: addresses.remote)
        if request.request.tracesBytes {
            info.trace = ConnectionTrace(poolDecision: transport.poolDecision(of: request.id),
                                         establishment: machine.isReused ? nil : establishment)
        }
        return info
    }
}
