import FWLoop

// MARK: - HTTPTransport: what connections report
//
// A connection calls these on its loop thread: established or failed, a request finished (and which one it
// runs next), failed (retried or delivered), bounced off a stale connection, the connection closed or its idle
// timeout fired. Each computes the pool's work under the lock and performs it after.

extension HTTPTransport {
    func connectionEstablished(_ connection: HTTP1Connection) {
        perform(state.withLock { state in
            resolveLocked(state.pool.connectionEstablished(connection.id), in: &state, failure: .shutDown)
        })
    }

    func connectionFailed(_ connection: HTTP1Connection, error: TransportError) {
        perform(state.withLock { state in
            state.connections[connection.id] = nil
            let action = state.pool.connectionFailed(connection.id)
            // Out of a time shortened for the request it was made for (see makeConnection): others wait on.
            if error.isTimedOut, connection.connectTimeout < configuration.connectTimeout {
                return keepWaitingLocked(after: action, in: &state, failure: error)
            }
            return resolveLocked(action, in: &state, failure: error)
        })
    }

    /// The connection finished `request`; returns the request the pool leased the connection to next, and
    /// with pipelining the ones to write behind it, for the connection to start once it is done with this one
    /// (other work is done here).
    func requestFinished(_ request: PreparedRequest, on connection: HTTP1Connection,
                         reusable: Bool) -> (next: PreparedRequest?, more: [PreparedRequest]) {
        let work = state.withLock { state in
            state.entries[request.id] = nil
            if !reusable { state.connections[connection.id] = nil }
            let action = state.pool.requestFinished(on: connection.id, reusable: reusable, request: request.id)
            return resolveLocked(action, in: &state, failure: .shutDown)
        }
        var next: PreparedRequest?
        var more: [PreparedRequest] = []
        var others = WorkList()
        for item in work {
            guard case .execute(let request, let target) = item, target === connection else {
                others.append(item)
                continue
            }
            if next == nil { next = request } else { more.append(request) }
        }
        perform(others)
        return (next, more)
    }

    func requestFailed(_ request: PreparedRequest, on connection: HTTP1Connection, error: TransportError,
                       retry: Bool) {
        perform(state.withLock { state in
            state.connections[connection.id] = nil
            var work = resolveLocked(state.pool.requestFinished(on: connection.id, reusable: false, request: request.id),
                                     in: &state, failure: .shutDown)
            work += requeueOrFailLocked(request, error: error, retry: retry, in: &state)
            return work
        })
    }

    /// The request reached a connection that had closed in the meantime: no byte was written, so it
    /// goes back to the pool (this does not use up its one retry).
    func retry(afterStaleConnection request: PreparedRequest) {
        perform(state.withLock { state in
            requeueOrFailLocked(request, error: .connectionLost("stale connection"), retry: true,
                                countsAsRetry: false, in: &state)
        })
    }

    func connectionClosed(_ connection: HTTP1Connection) {
        perform(state.withLock { state in
            state.connections[connection.id] = nil
            return resolveLocked(state.pool.connectionClosed(connection.id), in: &state, failure: .shutDown)
        })
    }

    func idleTimeoutFired(_ connection: HTTP1Connection) {
        perform(state.withLock { state in
            resolveLocked(state.pool.idleTimeoutFired(connection.id), in: &state, failure: .shutDown)
        })
    }
}
