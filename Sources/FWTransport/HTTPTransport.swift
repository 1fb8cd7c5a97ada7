import FWLoop
import FWTLS
import FWWire

// MARK: - HTTPTransport

/// The HTTP/1.1 client engine: one connection pool (per-host limits, FIFO waiters, LIFO idle reuse)
/// over connections spread across an event-loop group.
///
/// Threading: `execute`, `cancel`, `shutdown` and `counters` may be called from any thread. The pool
/// state machine, the request table and the connection table sit behind `state`'s lock; the lock is
/// only held to compute what to do, and the work (starting connections, running requests on their
/// loops, calling delegates) happens after it is released. Connections call back on their loop.
public final class HTTPTransport: Sendable {
    /// Settings fixed for the transport's lifetime.
    public struct Configuration: Sendable {
        /// Hard limit of open connections per (scheme, host, port).
        public var maxConnectionsPerHost: Int
        /// Most idle connections kept per host (nil: as many as `maxConnectionsPerHost`).
        public var maxIdleConnectionsPerHost: Int?
        /// Requests one connection carries before it is closed (nil: no limit).
        public var maxRequestsPerConnection: Int?
        /// The longest establishing a connection may take (resolving, connecting, the TLS handshake and the
        /// trust decision together); a connection made for a request that may wait less gets that much.
        public var connectTimeout: Duration
        /// How long an idle connection is kept for reuse.
        public var idleConnectionTimeout: Duration
        /// Response parser limits.
        public var limits: HTTPLimits
        /// TLS settings for HTTPS connections (versions, trust roots, client identity).
        public var tls: TLSConfiguration
        /// Decides whether to trust a server after its TLS handshake (nil: `DefaultTrustEvaluator`).
        public var serverTrustHandler: ServerTrustHandler?
        /// Chooses the certificate to send when a server asks for one and `tls.clientIdentity` is nil
        /// (nil: none is sent).
        public var clientIdentityHandler: ClientIdentityHandler?
        /// The most requests one connection carries at once when they ask for pipelining
        /// (`TransportRequest.pipelining`); 4 by default, 1 turns pipelining off.
        public var pipeliningDepth: Int
        /// The loops that stream and WebSocket channels run on (nil: the transport's own group). A stream
        /// opened by `openStream` connects on one of them; a connection handed over to a stream
        /// (`detachStream`) or a WebSocket moves its socket there, so such a channel never runs on the loops
        /// of the pool. The caller keeps these loops running while its channels live (the transport's
        /// `shutdown` does not stop them).
        public var channelLoops: EventLoopGroup?

        /// Creates a configuration; the defaults match URLSession's.
        public init(maxConnectionsPerHost: Int = 6, maxIdleConnectionsPerHost: Int? = nil,
                    maxRequestsPerConnection: Int? = nil, connectTimeout: Duration = .seconds(60),
                    idleConnectionTimeout: Duration = .seconds(90), limits: HTTPLimits = HTTPLimits(),
                    tls: TLSConfiguration = TLSConfiguration(), serverTrustHandler: ServerTrustHandler? = nil,
                    clientIdentityHandler: ClientIdentityHandler? = nil, pipeliningDepth: Int = 4,
                    channelLoops: EventLoopGroup? = nil) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxIdleConnectionsPerHost = maxIdleConnectionsPerHost
            self.maxRequestsPerConnection = maxRequestsPerConnection
            self.connectTimeout = connectTimeout
            self.idleConnectionTimeout = idleConnectionTimeout
            self.limits = limits
            self.tls = tls
            self.serverTrustHandler = serverTrustHandler
            self.clientIdentityHandler = clientIdentityHandler
            self.pipeliningDepth = pipeliningDepth
            self.channelLoops = channelLoops
        }
    }

    /// One request the transport knows, from `execute` until it ends. Which connection it runs on is the
    /// pool's fact (`ConnectionPoolStateMachine.connection(leasedTo:key:)`), not the entry's.
    struct Entry {
        var prepared: PreparedRequest
        var retried = false
        /// A cancel that is on its way to the connection; a retry honours it instead of re-enqueueing.
        var pendingCancel: TransportError?
        /// What the task wants (`setReadingPaused`): the one owner of "reading is paused"; the connection
        /// reads it when it starts the request and whenever it is told it changed.
        var readingPaused = false
        /// The version of `readingPaused`: a later decision of the task always wins over an earlier one
        /// that arrives late.
        var pauseVersion: UInt64 = 0
        /// While the request waits for a connection: when it times out (its idle timeout, counted from
        /// `execute`, covers the wait, the connect and the TLS handshake).
        var waitDeadline: Deadline?
        /// How the pool served the request at its last enqueue (read only for a traced request's trace).
        var poolDecision: PoolDecision?
    }

    struct State {
        var pool: ConnectionPoolStateMachine
        var entries: [RequestID: Entry] = [:]
        var connections: [ConnectionID: HTTP1Connection] = [:]
        /// The deadline the wait sweep is armed for, if any.
        var waitSweepArmedFor: Deadline?

        /// Changes request `id`'s entry in place, if there is one, and returns what `change` returned (nil when
        /// there is no entry). (`entries[id]?.field = value` goes through `Dictionary`'s keyed `_modify`
        /// coroutine, which allocated frames for an entry this large.) Also the way to read a field: through
        /// `entries[id]?.field` or `entries.values[index]`, the whole entry is copied out, retaining and
        /// releasing what it holds.
        @discardableResult
        mutating func updateEntry<Result>(_ id: RequestID, _ change: (inout Entry) -> Result) -> Result? {
            guard let index = entries.index(forKey: id) else { return nil }
            return change(&entries.values[index])
        }
    }

    /// Work decided under the lock, done after it. The cases that carry an error are boxed, so that an item
    /// is two words and a tag: every request's `execute` is moved around in a `WorkList`.
    enum Work {
        case execute(PreparedRequest, on: HTTP1Connection)
        indirect case fail(RequestID, any TransportTaskDelegate, TransportError)
        case start(HTTP1Connection)
        case close(HTTP1Connection)
        indirect case cancel(RequestID, on: HTTP1Connection, TransportError)
        case refreshReadingPause(RequestID, on: HTTP1Connection)
        case armWaitSweep(Deadline)
    }

    let group: EventLoopGroup
    let configuration: Configuration
    /// The loop whose timer ends the waits that outlast their request's timeout.
    let sweepLoop: EventLoop
    /// The TLS context, made on the first HTTPS connection (it loads trust roots, so only once).
    let tlsContextBox = LockedBox<Result<TLSContext, TLSError>?>(nil)
    /// The pool, the request table and the connection table.
    let state: LockedBox<State>
    /// Read pieces given back by the consumers of large body reads, for the connections' next large reads.
    public let bodyPieces: BodyPieceRecycler
    /// The requests' numbers (`execute` prepares a request, which needs its number, before it takes the lock).
    private let requestNumbers = AtomicCounter(startingAt: 1)

    /// Creates a transport whose connections live on `group`'s loops.
    public init(configuration: Configuration = Configuration(), group: EventLoopGroup) {
        self.group = group
        self.configuration = configuration
        self.sweepLoop = group.next()
        self.bodyPieces = BodyPieceRecycler(loop: sweepLoop)
        self.state = LockedBox(State(pool: ConnectionPoolStateMachine(
            maxConnectionsPerHost: configuration.maxConnectionsPerHost,
            maxIdleConnectionsPerHost: configuration.maxIdleConnectionsPerHost,
            pipeliningDepth: configuration.pipeliningDepth)))
    }

    /// Creates a transport on the process-wide event loops (one per core, started on first use), or
    /// nil when the process cannot start them (no file descriptors or threads left).
    public convenience init?(sharedLoopsWith configuration: Configuration) {
        guard let group = Self.sharedLoops else { return nil }
        self.init(configuration: configuration, group: group)
    }

    /// The process-wide event loops (one per core, on the real monotonic clock), started on first use; nil
    /// when the process cannot start them.
    public static var sharedLoops: EventLoopGroup? {
        try? sharedGroup.get()
    }

    /// The process-wide event loops, or why they could not start.
    private static let sharedGroup: Result<EventLoopGroup, IOError> = Result { () throws(IOError) in
        try EventLoopGroup(namePrefix: "fw-loop")
    }

    // MARK: Public API

    /// Starts `request`; `delegate` receives its events (see `TransportEvent`) on a loop thread.
    @discardableResult
    public func execute(_ request: consuming TransportRequest, delegate: any TransportTaskDelegate) -> RequestID {
        // Prepared (encoded) outside the lock, and moved into it: the request is not copied on its way.
        let id = RequestID(requestNumbers.next())
        let prepared: PreparedRequest
        do throws(HTTPRequestError) {
            prepared = try PreparedRequest(id: id, request: consume request, delegate: delegate)
        } catch {
            perform(WorkList(.fail(id, delegate, .invalidRequest(error))))
            return id
        }
        let work: WorkList = state.withLock { state in
            state.entries[id] = Entry(prepared: prepared)
            let key = prepared.request.key
            let action = state.pool.enqueue(id, key: key, priority: prepared.request.priority,
                                            pipelinable: prepared.isPipelinable)
            if prepared.request.tracesBytes { state.updateEntry(id) { $0.poolDecision = PoolDecision(action) } }
            var work = resolveLocked(action, in: &state, failure: .shutDown)
            // A request the pool served at once waits for nothing (and the key is not hashed again).
            if case .none = action.request, state.pool.isWaiting(id, key: key) {
                work += startWaitingLocked(id, timeout: prepared.request.idleTimeout, in: &state)
            }
            return work
        }
        perform(work)
        return id
    }

    /// Ends request `id` with `error` (default `cancelled`) wherever it is: waiting, connecting or
    /// running. A request that already ended is left alone.
    public func cancel(_ id: RequestID, error: TransportError = .cancelled) {
        let work: WorkList = state.withLock { state in
            guard let key = state.entries[id]?.prepared.request.key else { return WorkList() }
            guard let connectionID = state.pool.connection(leasedTo: id, key: key) else {
                if state.pool.isWaiting(id, key: key) {
                    return resolveLocked(state.pool.cancelWaiting(id, key: key), in: &state, failure: error)
                }
                // Between connections (a retry on its way): the retry honours the cancel.
                state.updateEntry(id) { $0.pendingCancel = error }
                return WorkList()
            }
            state.updateEntry(id) { $0.pendingCancel = error }
            guard let connection = state.connections[connectionID] else { return WorkList() }
            return WorkList(.cancel(id, on: connection, error))
        }
        perform(work)
    }

    /// Stops (`paused`) or restarts reading the response of request `id`: a suspended task applies
    /// backpressure instead of buffering, and its idle timeout stops while paused. `version` orders the
    /// task's decisions: one older than the last applied is ignored (it arrived late).
    public func setReadingPaused(_ paused: Bool, for id: RequestID, version: UInt64) {
        let work: WorkList = state.withLock { state in
            // One lookup, no copy of the entry: the decision applies when it is newer than the last applied.
            let changed = state.updateEntry(id) { entry -> ConnectionKey? in
                guard version > entry.pauseVersion else { return nil }
                entry.readingPaused = paused
                entry.pauseVersion = version
                return entry.prepared.request.key
            }
            guard let key = changed ?? nil,
                  let connectionID = state.pool.connection(leasedTo: id, key: key),
                  let connection = state.connections[connectionID] else { return WorkList() }
            return WorkList(.refreshReadingPause(id, on: connection))
        }
        perform(work)
    }

    /// Whether the task of request `id` wants its response read now (connections ask when they start the
    /// request and when told that it changed).
    func isReadingPaused(_ id: RequestID) -> Bool {
        state.withLock { $0.updateEntry(id) { $0.readingPaused } ?? false }
    }

    /// Stops the pool: waiting requests fail with `shutDown`, idle connections close, running requests
    /// finish and then close their connections.
    public func shutdown() {
        let work: WorkList = state.withLock { state in
            let action = state.pool.shutdown()
            var work = WorkList()
            for id in action.fail {
                if let entry = state.entries.removeValue(forKey: id) {
                    work.append(.fail(id, entry.prepared.delegate, .shutDown))
                }
            }
            for id in action.close {
                if let connection = state.connections.removeValue(forKey: id) { work.append(.close(connection)) }
            }
            return work
        }
        perform(work)
    }

    /// Changes the per-host limit: new connections respect it, open ones are never closed for it.
    public func setMaxConnectionsPerHost(_ limit: Int) {
        perform(state.withLock { state in
            var work = WorkList()
            for action in state.pool.setMaxConnectionsPerHost(limit) {
                work += resolveLocked(action, in: &state, failure: .shutDown)
            }
            return work
        })
    }

    /// The pool's counts for `key`.
    public func counters(for key: ConnectionKey) -> ConnectionPoolCounters {
        state.withLock { $0.pool.counters(for: key) }
    }

    /// The delegate request `id` was started with, while it has not ended (the trust and identity
    /// handlers get a request id; this tells whose request it is).
    public func delegate(of id: RequestID) -> (any TransportTaskDelegate)? {
        state.withLock { $0.updateEntry(id) { $0.prepared.delegate } }
    }

    // MARK: Under the lock

    func requeueOrFailLocked(_ request: PreparedRequest, error: TransportError, retry: Bool,
                             countsAsRetry: Bool = true, newConnection: Bool = true,
                             in state: inout State) -> WorkList {
        guard var entry = state.entries[request.id] else { return WorkList() }
        if let cancel = entry.pendingCancel {
            state.entries[request.id] = nil
            return WorkList(.fail(request.id, request.delegate, cancel))
        }
        guard retry, !(countsAsRetry && entry.retried) else {
            state.entries[request.id] = nil
            return WorkList(.fail(request.id, request.delegate, error))
        }
        entry.retried = entry.retried || countsAsRetry
        state.entries[request.id] = entry
        let action = state.pool.enqueue(request.id, key: request.request.key, priority: request.request.priority,
                                        requiresNewConnection: newConnection, pipelinable: request.isPipelinable)
        if request.request.tracesBytes { state.updateEntry(request.id) { $0.poolDecision = PoolDecision(action) } }
        var work = resolveLocked(action, in: &state, failure: .shutDown)
        if state.pool.isWaiting(request.id, key: request.request.key) {
            work += startWaitingLocked(request.id, timeout: request.request.idleTimeout, in: &state)
        }
        return work
    }

    /// Turns a pool action into work, updating the tables. `failure` is the error for a `.fail`.
    func resolveLocked(_ action: ConnectionPoolStateMachine.Action, in state: inout State,
                               failure: TransportError) -> WorkList {
        var work = WorkList()
        switch action.connection {
        case .none:
            break
        case .create(let id, let key):
            work.append(.start(makeConnection(id, key: key, in: &state)))
        case .close(let id):
            if let connection = state.connections.removeValue(forKey: id) { work.append(.close(connection)) }
        case .closeAndCreate(let closeID, let createID, let key):
            if let connection = state.connections.removeValue(forKey: closeID) { work.append(.close(connection)) }
            work.append(.start(makeConnection(createID, key: key, in: &state)))
        }
        switch action.request {
        case .none:
            break
        case .execute(let requestID, let connectionID):
            guard let entry = state.entries[requestID], let connection = state.connections[connectionID] else {
                preconditionFailure("pool leased \(connectionID) to \(requestID), which the transport does not know")
            }
            if entry.waitDeadline != nil { state.updateEntry(requestID) { $0.waitDeadline = nil } }
            work.append(.execute(entry.prepared, on: connection))
        case .executeAll(let requestIDs, let connectionID):
            guard let connection = state.connections[connectionID] else {
                preconditionFailure("pool leased \(connectionID), which the transport does not know")
            }
            for requestID in requestIDs {
                guard let entry = state.entries[requestID] else {
                    preconditionFailure("pool leased \(connectionID) to \(requestID), which the transport does not know")
                }
                if entry.waitDeadline != nil { state.updateEntry(requestID) { $0.waitDeadline = nil } }
                work.append(.execute(entry.prepared, on: connection))
            }
        case .fail(let requestID):
            if let entry = state.entries.removeValue(forKey: requestID) {
                work.append(.fail(requestID, entry.prepared.delegate, entry.pendingCancel ?? failure))
            }
        }
        return work
    }

    /// A new connection, which the pool made for its waiter `waiter(for: id)`: it may take as long to
    /// establish as that request may still wait (at most `connectTimeout`), so no attempt outlives the
    /// request it was made for.
    private func makeConnection(_ id: ConnectionID, key: ConnectionKey, in state: inout State) -> HTTP1Connection {
        var timeout = configuration.connectTimeout
        if let waiter = state.pool.waiter(for: id), let entry = state.entries[waiter] {
            let remaining = entry.waitDeadline.map { $0 - sweepLoop.now() } ?? entry.prepared.request.idleTimeout
            timeout = max(.zero, min(timeout, remaining))
        }
        let connection = HTTP1Connection(id: id, key: key, loop: group.next(), transport: self,
                                         connectTimeout: timeout,
                                         idleConnectionTimeout: configuration.idleConnectionTimeout,
                                         maxRequests: configuration.maxRequestsPerConnection,
                                         pipeliningDepth: configuration.pipeliningDepth,
                                         limits: configuration.limits)
        state.connections[id] = connection
        return connection
    }
}
