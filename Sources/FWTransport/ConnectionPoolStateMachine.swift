// MARK: - ConnectionPoolStateMachine
//
// The pool's bookkeeping as a pure value type: no sockets, no threads, no clocks. The owner
// (`HTTPTransport`) keeps it behind its lock, feeds it inputs and executes the returned actions after
// the lock is released.
//
// Per `ConnectionKey` the machine keeps:
//   - every connection with its state: `connecting` → (`idle` ⇄ `leased(request)`) → removed;
//   - the idle list, a LIFO stack (the most recently used connection is the least likely to have been
//     closed by the server);
//   - the waiters, a queue of requests that found no idle connection: higher priority first, FIFO
//     within a priority.
//
// The hard rule: the number of connections of a key (connecting + idle + leased) never exceeds
// `maxConnectionsPerHost`. A request is served by an idle connection if there is one; otherwise it
// waits, and a new connection is created when the key has fewer connections than the limit and fewer
// connections on their way than waiters. A new connection serves the oldest waiter; if none is left
// (it was cancelled) the connection goes to the idle list instead of being wasted — unless its key is a
// partition of its own (`ConnectionKey.isolated()`, a raw request's): that one closes, and the key leaves.
//
// At most `maxIdleConnectionsPerHost` connections are parked per key: parking one more closes the
// oldest. Lowering `maxConnectionsPerHost` never closes a connection: it only stops new ones until
// the count is under the new limit.
//
// A request that must be retried after a stale keep-alive connection failed asks for a *new*
// connection: it never takes a parked idle connection (which may be just as stale). When the key is
// at its limit, the oldest idle connection is closed to make room.
//
// A failed connection attempt fails the oldest waiter (each waiter gets its own attempt and its own
// error, as with URLSession). While connecting, the k-th oldest connecting connection of a key is made
// for its k-th waiter (`waiter(for:)`): the request whose delegate a TLS challenge goes to. That match
// is advisory; whichever connection is established first serves the first waiter.
//
// After `shutdown()` nothing new starts: idle connections are closed, connections that finish are
// closed instead of parked, and enqueued requests are refused.
//
// Pipelining (`pipeliningDepth` > 1, `+Pipelining.swift`): a connection leased to a pipelinable request (GET
// or HEAD without a body, asking for it) carries up to the depth of them at once. A pipelinable request
// without an idle connection joins such a pipeline before a new connection is opened for it, and a new or
// freed connection takes the pipelinable waiters at the front of the queue along with the first.
//
// `retireConnections()` (URLSession's `flush` and `reset`) keeps the pool running but ends the connections
// open now: idle ones are closed at once, leased ones when their request ends (they serve no other), so
// that later requests get new connections. Connections still connecting are not retired: they were opened
// for requests that already wait.

/// The pool's state machine: per-host limits, FIFO waiters, LIFO idle connections.
struct ConnectionPoolStateMachine {
    /// What to do with a request.
    enum RequestAction: Equatable {
        case none
        /// Run the request on this (established) connection, which is now leased to it.
        case execute(RequestID, on: ConnectionID)
        /// The request left the pool without a connection: fail it (the caller knows the reason).
        case fail(RequestID)
        /// Pipelining: run these requests on this connection, behind each other (it is leased to all).
        case executeAll([RequestID], on: ConnectionID)
    }

    /// What to do with connections.
    enum ConnectionAction: Equatable {
        case none
        /// Open a new connection for `key` and report `connectionEstablished` or `connectionFailed`.
        case create(ConnectionID, ConnectionKey)
        /// Close this idle connection (it has left the pool already).
        case close(ConnectionID)
        /// Close an idle connection to make room, then open a new one.
        case closeAndCreate(close: ConnectionID, create: ConnectionID, key: ConnectionKey)
    }

    /// The two halves of one step.
    struct Action: Equatable {
        var request: RequestAction
        var connection: ConnectionAction

        static let none = Action(request: .none, connection: .none)
    }

    /// What `shutdown()` leaves to the owner.
    struct ShutdownAction: Equatable {
        /// Idle connections to close.
        var close: [ConnectionID]
        /// Waiting requests to fail.
        var fail: [RequestID]
    }

    enum ConnectionState: Equatable {
        case connecting
        case idle
        case leased(RequestID)
    }

    struct Waiter {
        var request: RequestID
        var priority: Int
        var requiresNewConnection: Bool
        var pipelinable = false
    }

    /// One host's connections, idle list and waiters. (Its empty tables are `Dictionary()`, not `[:]`: the
    /// literal called the dictionary-literal initialiser each time a placeholder pool was made, twice a request.)
    struct HostPool {
        var connections = [ConnectionID: ConnectionState]()
        /// LIFO: the last element is the most recently parked.
        var idle: [ConnectionID] = []
        /// FIFO.
        var waiters: [Waiter] = []
        var connectingCount = 0
        /// Pipelining: the connections that carry (or may carry) several requests at once.
        var pipelines = [ConnectionID: Pipeline]()
        /// Pipelining: how many waiters are pipelinable.
        var pipelinableWaiters = 0

        /// Removes and returns waiter `index`.
        mutating func removeWaiter(at index: Int) -> Waiter {
            let waiter = waiters.remove(at: index)
            if waiter.pipelinable { pipelinableWaiters -= 1 }
            return waiter
        }

        var isUnused: Bool { connections.isEmpty && waiters.isEmpty }

        func describe(_ connection: ConnectionID) -> String {
            connections[connection].map { "\($0)" } ?? "unknown"
        }
    }

    private enum State {
        case running
        case shutDown
    }

    private var state = State.running
    var hosts: [ConnectionKey: HostPool] = [:]
    /// Leased connections that close when their request ends (`retireConnections()`).
    private var retiring: Set<ConnectionID> = []
    var keyOfConnection: [ConnectionID: ConnectionKey] = [:]
    private var nextConnectionNumber: UInt64 = 1
    private var maxConnectionsPerHost: Int
    private let maxIdleConnectionsPerHost: Int
    /// Pipelining: the most requests one connection carries at once (1: no pipelining).
    let pipeliningDepth: Int

    /// Creates an empty pool; both limits are clamped to at least 1 (idle: at least 0). The idle cap
    /// defaults to the connection limit. `pipeliningDepth` (at least 1) bounds the requests one pipelined
    /// connection carries at once.
    init(maxConnectionsPerHost: Int, maxIdleConnectionsPerHost: Int? = nil, pipeliningDepth: Int = 1) {
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.maxIdleConnectionsPerHost = max(0, maxIdleConnectionsPerHost ?? maxConnectionsPerHost)
        self.pipeliningDepth = max(1, pipeliningDepth)
    }

    // MARK: Inputs

    /// A request wants a connection for `key`. Higher `priority` waits ahead of lower. A `pipelinable` one
    /// may share a connection with others (`pipeliningDepth`).
    mutating func enqueue(_ request: RequestID, key: ConnectionKey, priority: Int = 0,
                          requiresNewConnection: Bool = false, pipelinable: Bool = false) -> Action {
        guard case .running = state else { return Action(request: .fail(request), connection: .none) }
        var pool = HostPool()
        let slot = takePool(for: key, into: &pool, creating: true)
        defer { putBack(pool, at: slot) }
        let pipelines = pipelinable && pipeliningDepth > 1

        if !requiresNewConnection, let connection = pool.idle.popLast() {
            pool.connections[connection] = .leased(request)
            if pipelines { pool.pipelines[connection] = Pipeline() }
            return Action(request: .execute(request, on: connection), connection: .none)
        }
        // Never ahead of a waiter that cannot share a connection (FIFO holds for it).
        if pipelines, !requiresNewConnection, pool.waiters.count == pool.pipelinableWaiters,
           let connection = joinablePipeline(in: pool) {
            pool.pipelines[connection]?.followers.append(request)
            return Action(request: .execute(request, on: connection), connection: .none)
        }
        let waiter = Waiter(request: request, priority: priority, requiresNewConnection: requiresNewConnection,
                            pipelinable: pipelines)
        let index = pool.waiters.lastIndex { $0.priority >= priority }.map { $0 + 1 } ?? 0
        pool.waiters.insert(waiter, at: index)
        if pipelines { pool.pipelinableWaiters += 1 }
        let creation = createIfNeeded(in: &pool, key: key)
        if creation != .none {
            return Action(request: .none, connection: creation)
        }
        if requiresNewConnection, pool.connectingCount == 0, !pool.idle.isEmpty {
            let victim = pool.idle.removeFirst()
            forget(victim, in: &pool)
            let created = startConnection(in: &pool, key: key)
            return Action(request: .none, connection: .closeAndCreate(close: victim, create: created, key: key))
        }
        return .none
    }

    /// A connection finished its handshake and can carry requests.
    mutating func connectionEstablished(_ connection: ConnectionID) -> Action {
        let key = self.key(of: connection)
        var pool = HostPool()
        let slot = takePool(for: key, into: &pool)
        defer { putBack(pool, at: slot) }
        guard pool.connections[connection] == .connecting else {
            preconditionFailure("connectionEstablished(\(connection)) in state \(pool.describe(connection))")
        }
        pool.connectingCount -= 1
        return serveOrPark(connection, in: &pool, key: key)
    }

    /// A connection attempt failed: the oldest waiter gets the error.
    mutating func connectionFailed(_ connection: ConnectionID) -> Action {
        let key = self.key(of: connection)
        var pool = HostPool()
        let slot = takePool(for: key, into: &pool)
        defer { putBack(pool, at: slot) }
        guard pool.connections[connection] == .connecting else {
            preconditionFailure("connectionFailed(\(connection)) in state \(pool.describe(connection))")
        }
        pool.connectingCount -= 1
        forget(connection, in: &pool)
        guard !pool.waiters.isEmpty else { return .none }
        let failed = pool.removeWaiter(at: 0).request
        return Action(request: .fail(failed), connection: createIfNeeded(in: &pool, key: key))
    }

    /// The request leased on `connection` is over. A reusable connection serves the next waiter or
    /// parks; one that is not reusable has closed itself and leaves the pool.
    /// `request` names the finished request (needed on a pipelined connection, which carries several).
    mutating func requestFinished(on connection: ConnectionID, reusable: Bool, request: RequestID? = nil) -> Action {
        let key = self.key(of: connection)
        var pool = HostPool()
        let slot = takePool(for: key, into: &pool)
        defer { putBack(pool, at: slot) }
        guard case .leased = pool.connections[connection] else {
            preconditionFailure("requestFinished(on: \(connection)) in state \(pool.describe(connection))")
        }
        if reusable, let request, !pool.pipelines.isEmpty, pool.pipelines[connection] != nil,
           let action = pipelinedRequestFinished(request, on: connection, in: &pool,
                                                 refill: !retiring.contains(connection)) {
            return action
        }
        if reusable, !retiring.contains(connection) {
            return serveOrPark(connection, in: &pool, key: key)
        }
        forget(connection, in: &pool)
        let creation = createIfNeeded(in: &pool, key: key)
        guard reusable else { return Action(request: .none, connection: creation) }
        // A retired connection that could have been reused is closed by the owner.
        switch creation {
        case .create(let created, let key):
            return Action(request: .none, connection: .closeAndCreate(close: connection, create: created, key: key))
        default:
            return Action(request: .none, connection: .close(connection))
        }
    }

    /// An established connection closed on its own (peer close while idle, error). A request it was
    /// leased to but had not started is the owner's to retry. Unknown connections are ignored.
    mutating func connectionClosed(_ connection: ConnectionID) -> Action {
        guard let key = keyOfConnection[connection], var pool = hosts[key] else { return .none }
        defer { store(pool, for: key) }
        switch pool.connections[connection] {
        case .idle:
            pool.idle.removeAll { $0 == connection }
        case .leased:
            break
        case .connecting, nil:
            preconditionFailure("connectionClosed(\(connection)) in state \(pool.describe(connection))")
        }
        forget(connection, in: &pool)
        return Action(request: .none, connection: createIfNeeded(in: &pool, key: key))
    }

    /// The idle timer of `connection` fired: close it if it is still idle.
    mutating func idleTimeoutFired(_ connection: ConnectionID) -> Action {
        guard let key = keyOfConnection[connection], var pool = hosts[key],
              pool.connections[connection] == .idle else { return .none }
        pool.idle.removeAll { $0 == connection }
        forget(connection, in: &pool)
        store(pool, for: key)
        return Action(request: .none, connection: .close(connection))
    }

    /// Removes a waiting request (cancelled or timed out). `.fail` if it was waiting, `.none` if not.
    mutating func cancelWaiting(_ request: RequestID, key: ConnectionKey) -> Action {
        guard var pool = hosts[key], let index = pool.waiters.firstIndex(where: { $0.request == request }) else {
            return .none
        }
        _ = pool.removeWaiter(at: index)
        store(pool, for: key)
        return Action(request: .fail(request), connection: .none)
    }

    /// Stops the pool: idle connections close, waiters fail, nothing new starts.
    mutating func shutdown() -> ShutdownAction {
        state = .shutDown
        var result = ShutdownAction(close: [], fail: [])
        for (key, var pool) in hosts {
            result.fail += pool.waiters.map(\.request)
            pool.waiters.removeAll()
            pool.pipelinableWaiters = 0
            for connection in pool.idle { forget(connection, in: &pool) }
            result.close += pool.idle
            pool.idle.removeAll()
            store(pool, for: key)
        }
        return result
    }

    /// Retires the connections open now (see the opening comment); returns the idle ones, which have left
    /// the pool, for the owner to close.
    mutating func retireConnections() -> [ConnectionID] {
        var closing: [ConnectionID] = []
        for (key, var pool) in hosts {
            for connection in pool.idle { forget(connection, in: &pool) }
            closing += pool.idle
            pool.idle.removeAll()
            for (connection, state) in pool.connections {
                if case .leased = state { retiring.insert(connection) }
            }
            store(pool, for: key)
        }
        return closing
    }

    /// Changes the per-host limit for connections created from now on; open connections stay.
    mutating func setMaxConnectionsPerHost(_ limit: Int) -> [Action] {
        maxConnectionsPerHost = max(1, limit)
        var actions: [Action] = []
        for (key, var pool) in hosts {
            while case let creation = createIfNeeded(in: &pool, key: key), creation != .none {
                actions.append(Action(request: .none, connection: creation))
            }
            store(pool, for: key)
        }
        return actions
    }

    // MARK: Helpers

    private func key(of connection: ConnectionID) -> ConnectionKey {
        guard let key = keyOfConnection[connection] else {
            preconditionFailure("unknown connection \(connection) in state \(state)")
        }
        return key
    }

    private mutating func startConnection(in pool: inout HostPool, key: ConnectionKey) -> ConnectionID {
        let id = ConnectionID(nextConnectionNumber)
        nextConnectionNumber += 1
        pool.connections[id] = .connecting
        pool.connectingCount += 1
        keyOfConnection[id] = key
        return id
    }

    private mutating func forget(_ connection: ConnectionID, in pool: inout HostPool) {
        pool.connections[connection] = nil
        if !pool.pipelines.isEmpty { pool.pipelines[connection] = nil }
        keyOfConnection[connection] = nil
        retiring.remove(connection)
    }

    private mutating func serveOrPark(_ connection: ConnectionID, in pool: inout HostPool,
                                      key: ConnectionKey) -> Action {
        if !pool.waiters.isEmpty {
            let waiter = pool.removeWaiter(at: 0)
            pool.connections[connection] = .leased(waiter.request)
            if waiter.pipelinable { return startPipeline(on: connection, with: waiter.request, in: &pool) }
            return Action(request: .execute(waiter.request, on: connection), connection: .none)
        }
        // No request asks for an isolated partition's connection (or key) again: it closes, as after shutdown.
        var shutDown = false
        if case .shutDown = state { shutDown = true }
        if shutDown || key.partition != 0 {
            forget(connection, in: &pool)
            return Action(request: .none, connection: .close(connection))
        }
        pool.connections[connection] = .idle
        pool.idle.append(connection)
        guard pool.idle.count > maxIdleConnectionsPerHost else { return .none }
        let oldest = pool.idle.removeFirst()
        forget(oldest, in: &pool)
        return Action(request: .none, connection: .close(oldest))
    }

    /// Starts a connection when waiters outnumber the connections on their way and the limit allows.
    private mutating func createIfNeeded(in pool: inout HostPool, key: ConnectionKey) -> ConnectionAction {
        guard case .running = state,
              pool.connectionDemand(depth: pipeliningDepth) > pool.connectingCount,
              pool.connections.count < maxConnectionsPerHost else { return .none }
        return .create(startConnection(in: &pool, key: key), key)
    }
}
