import FWLoop

// MARK: - HTTPTransport: what pipelined connections report
//
// A pipelined connection (HTTP1ConnectionStateMachine+Pipelining.swift) reports, on its loop thread, the
// requests that leave its queue other than by their response: one it could not take (bounced, unwritten:
// back to the pool for another connection), one cancelled before its turn (ended), and the ones written but
// never answered when it closed (replayed on a new connection, each replay counted in the request's metrics).

extension HTTPTransport {
    /// `request` could not join `connection`'s queue (nothing of it was written): it waits for another
    /// connection, and that pipeline takes no more requests.
    func followerBounced(_ request: PreparedRequest, on connection: HTTP1Connection) {
        perform(state.withLock { state in
            state.pool.requestLeft(request.id, connection: connection.id)
            return requeueOrFailLocked(request, error: .connectionLost("the pipelined connection is closing"),
                                       retry: true, countsAsRetry: false, newConnection: false, in: &state)
        })
    }

    /// `request` left `connection`'s queue before its turn with `error` (cancelled): it ends.
    func followerFailed(_ request: PreparedRequest, on connection: HTTP1Connection, error: TransportError) {
        perform(state.withLock { state in
            state.pool.requestLeft(request.id, connection: connection.id)
            return requeueOrFailLocked(request, error: error, retry: false, in: &state)
        })
    }

    /// The pipelined connection closed (it has left the pool) before answering `requests`, which it had
    /// written: each goes out again on a new connection, in order. A request cancelled meanwhile ends instead.
    func replay(_ requests: [PreparedRequest]) {
        perform(state.withLock { state in
            var work = WorkList()
            for request in requests {
                let again = request.replayed()
                state.updateEntry(request.id) { $0.prepared = again }
                work += requeueOrFailLocked(again,
                                            error: .connectionLost("the pipelined connection closed before the response"),
                                            retry: true, countsAsRetry: false, in: &state)
            }
            return work
        })
    }
}
