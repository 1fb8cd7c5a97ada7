// MARK: - ConnectionPoolStateMachine: pipelining
//
// What the pool knows of pipelined connections (see the opening comment of ConnectionPoolStateMachine.swift).
// A connection leased to a pipelinable request has a `Pipeline`: the requests it carries besides the one in
// its `.leased` state. The pool counts them against the depth and finds a request's connection through them
// (to cancel it, to pause its reading); the order in which the connection writes and answers them is the
// connection's own (`HTTP1ConnectionStateMachine+Pipelining.swift`), so the pool never relies on it: when a
// request ends, it is removed wherever it is, and another of the connection's requests takes `.leased`.
//
// A pipelinable request never goes ahead of a waiter that cannot share: it joins a pipeline only when no such
// waiter waits, and a pipeline takes waiters only from the front of the queue.
//
// A pipeline stops taking requests once one of its requests left early (bounced by the connection, whose
// response will close it, or cancelled before its turn): the connection ends after its current response. A
// connection that closes takes its pipeline with it; the connection replays the requests it had written.

extension ConnectionPoolStateMachine {
    /// The requests a pipelined connection carries besides its leased one.
    struct Pipeline: Equatable {
        /// The other requests it carries (in the order the pool leased them, which is not necessarily the
        /// order the connection writes them).
        var followers: [RequestID] = []
        /// Whether it may take more.
        var isOpen = true
    }

    /// The open pipeline with the fewest requests in flight that has room for one more (ties: the oldest).
    func joinablePipeline(in pool: HostPool) -> ConnectionID? {
        var best: (connection: ConnectionID, load: Int)?
        for (connection, pipeline) in pool.pipelines where pipeline.isOpen {
            guard case .leased = pool.connections[connection] else { continue }
            let load = 1 + pipeline.followers.count
            guard load < pipeliningDepth else { continue }
            if let current = best, current.load < load || current.load == load
                && current.connection.rawValue < connection.rawValue { continue }
            best = (connection, load)
        }
        return best?.connection
    }

    /// `connection` was just leased to pipelinable `first`: it takes the pipelinable waiters at the front of
    /// the queue as well, up to the depth.
    mutating func startPipeline(on connection: ConnectionID, with first: RequestID, in pool: inout HostPool) -> Action {
        pool.pipelines[connection] = Pipeline()
        let more = fillPipeline(connection, in: &pool)
        guard !more.isEmpty else { return Action(request: .execute(first, on: connection), connection: .none) }
        return Action(request: .executeAll([first] + more, on: connection), connection: .none)
    }

    /// Leases `connection` to the pipelinable waiters at the front of the queue while its pipeline has room.
    mutating func fillPipeline(_ connection: ConnectionID, in pool: inout HostPool) -> [RequestID] {
        var taken: [RequestID] = []
        while var pipeline = pool.pipelines[connection], pipeline.isOpen,
              1 + pipeline.followers.count < pipeliningDepth,
              let waiter = pool.waiters.first, waiter.pipelinable {
            _ = pool.removeWaiter(at: 0)
            pipeline.followers.append(waiter.request)
            pool.pipelines[connection] = pipeline
            taken.append(waiter.request)
        }
        return taken
    }

    /// `request` ended on pipelined `connection`, which stays usable. nil when it was the connection's last
    /// request (the caller then serves or parks it as any other); otherwise the connection stays leased to
    /// the others and, when `refill`, takes waiters.
    mutating func pipelinedRequestFinished(_ request: RequestID, on connection: ConnectionID,
                                           in pool: inout HostPool, refill: Bool) -> Action? {
        guard remove(request, from: connection, in: &pool) else {
            pool.pipelines[connection] = nil
            return nil
        }
        guard refill else { return Action.none }
        let taken = fillPipeline(connection, in: &pool)
        switch taken.count {
        case 0: return Action.none
        case 1: return Action(request: .execute(taken[0], on: connection), connection: .none)
        default: return Action(request: .executeAll(taken, on: connection), connection: .none)
        }
    }

    /// `request` left pipelined `connection` before its turn (bounced, or cancelled): the pipeline takes no
    /// more requests. Ignored when the connection is gone.
    mutating func requestLeft(_ request: RequestID, connection: ConnectionID) {
        guard let key = keyOfConnection[connection], var pool = hosts[key], pool.pipelines[connection] != nil else {
            return
        }
        _ = remove(request, from: connection, in: &pool)
        pool.pipelines[connection]?.isOpen = false
        store(pool, for: key)
    }

    /// Removes `request` from the requests `connection` carries; false when none is left (the connection
    /// stays `.leased` to it for the caller).
    private mutating func remove(_ request: RequestID, from connection: ConnectionID, in pool: inout HostPool) -> Bool {
        guard var pipeline = pool.pipelines[connection] else { return false }
        if let index = pipeline.followers.firstIndex(of: request) {
            pipeline.followers.remove(at: index)
            pool.pipelines[connection] = pipeline
            return true
        }
        guard pool.connections[connection] == .leased(request), !pipeline.followers.isEmpty else { return false }
        pool.connections[connection] = .leased(pipeline.followers.removeFirst())
        pool.pipelines[connection] = pipeline
        return true
    }
}

extension ConnectionPoolStateMachine.HostPool {
    /// How many new connections the waiters need: one each, but pipelinable ones share one per `depth`.
    func connectionDemand(depth: Int) -> Int {
        guard pipelinableWaiters > 0 else { return waiters.count }
        return waiters.count - pipelinableWaiters + (pipelinableWaiters + depth - 1) / depth
    }
}
