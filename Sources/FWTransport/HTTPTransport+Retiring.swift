// MARK: - HTTPTransport: retiring the connections open now
//
// URLSession's `flush` and `reset` promise that later requests use new connections. The pool retires what
// is open (`ConnectionPoolStateMachine.retireConnections()`): idle connections leave it and are closed
// here at once; connections in use close when their request ends instead of being parked.

extension HTTPTransport {
    /// Ends the connections open now, so that later requests use new ones: idle connections close at once,
    /// connections in use close when their request ends. The transport keeps running; connections still
    /// being opened are kept for the requests waiting for them.
    public func retireConnections() {
        perform(state.withLock { state in
            var work = WorkList()
            for id in state.pool.retireConnections() {
                if let connection = state.connections.removeValue(forKey: id) { work.append(.close(connection)) }
            }
            return work
        })
    }
}
