// MARK: - ConnectionPoolStateMachine: queries
//
// Read-only questions the owner asks the pool (counts, which connection a request is on, who waits); the
// rules are in ConnectionPoolStateMachine.swift.

extension ConnectionPoolStateMachine {
    // MARK: Queries

    /// Counts for one key.
    func counters(for key: ConnectionKey) -> ConnectionPoolCounters {
        guard let pool = hosts[key] else { return ConnectionPoolCounters() }
        var counters = ConnectionPoolCounters(waiting: pool.waiters.count)
        for state in pool.connections.values {
            switch state {
            case .connecting: counters.connecting += 1
            case .idle: counters.idle += 1
            case .leased: counters.leased += 1
            }
        }
        return counters
    }

    /// The connection `request` is leased to, if any (nil while it waits or after it finished).
    func connection(leasedTo request: RequestID, key: ConnectionKey) -> ConnectionID? {
        guard let pool = hosts[key] else { return nil }
        if let connection = pool.connections.first(where: { $0.value == .leased(request) })?.key { return connection }
        guard !pool.pipelines.isEmpty else { return nil }
        return pool.pipelines.first { $0.value.followers.contains(request) }?.key
    }

    /// Whether `request` waits for a connection of `key`.
    func isWaiting(_ request: RequestID, key: ConnectionKey) -> Bool {
        hosts[key]?.waiters.contains { $0.request == request } ?? false
    }

    /// Every key with connections or waiters.
    var keys: [ConnectionKey] { Array(hosts.keys) }

    /// The request a connecting `connection` is being made for: its rank among the key's connecting
    /// connections (oldest first) picks a waiter in queue order. nil when the connection is not
    /// connecting or has no waiter left to serve (cancelled, or served by another connection).
    func waiter(for connection: ConnectionID) -> RequestID? {
        guard let key = keyOfConnection[connection], let pool = hosts[key],
              pool.connections[connection] == .connecting else { return nil }
        let rank = pool.connections.count { $0.value == .connecting && $0.key.rawValue < connection.rawValue }
        return pool.waiters.indices.contains(rank) ? pool.waiters[rank].request : nil
    }
}
