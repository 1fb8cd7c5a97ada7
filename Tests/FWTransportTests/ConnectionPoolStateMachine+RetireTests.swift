import Testing
@testable import FWTransport

// `retireConnections()`: the connections open now end (idle ones at once, leased ones when their request
// ends) while the pool keeps running, so later requests get new connections.
@Suite struct ConnectionPoolStateMachineRetireTests {
    private let key = ConnectionKey(scheme: "http", host: "example.com", port: 80)

    private func created(_ action: ConnectionPoolStateMachine.Action) -> ConnectionID? {
        switch action.connection {
        case .create(let id, _), .closeAndCreate(_, let id, _): return id
        default: return nil
        }
    }

    /// A pool with one idle and one leased connection (leased to R2).
    private func poolWithIdleAndLeased() throws -> (ConnectionPoolStateMachine, idle: ConnectionID,
                                                     leased: ConnectionID) {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let idle = try #require(created(pool.enqueue(RequestID(1), key: key)))
        let leased = try #require(created(pool.enqueue(RequestID(2), key: key)))
        _ = pool.connectionEstablished(idle)
        _ = pool.connectionEstablished(leased)
        _ = pool.requestFinished(on: idle, reusable: true)
        return (pool, idle, leased)
    }

    @Test func idleConnectionsCloseAtOnceAndLaterRequestsGetANewConnection() throws {
        var (pool, idle, _) = try poolWithIdleAndLeased()
        #expect(pool.retireConnections() == [idle])
        #expect(pool.counters(for: key) == .init(leased: 1))
        let fresh = try #require(created(pool.enqueue(RequestID(3), key: key)))
        #expect(fresh != idle)
    }

    @Test(arguments: [true, false])
    func aLeasedConnectionClosesWhenItsRequestEnds(_ reusable: Bool) throws {
        var (pool, _, leased) = try poolWithIdleAndLeased()
        _ = pool.retireConnections()
        let action = pool.requestFinished(on: leased, reusable: reusable)
        #expect(action == (reusable ? .init(request: .none, connection: .close(leased)) : .none))
        #expect(pool.counters(for: key) == .init())
    }

    @Test func aWaiterGetsANewConnectionInsteadOfTheRetiredOne() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let first = try #require(created(pool.enqueue(RequestID(1), key: key)))
        _ = pool.connectionEstablished(first)
        #expect(pool.enqueue(RequestID(2), key: key) == .none)
        #expect(pool.retireConnections().isEmpty)
        let action = pool.requestFinished(on: first, reusable: true)
        guard case .closeAndCreate(let closed, let second, _) = action.connection else {
            Issue.record("expected close and create, got \(action)")
            return
        }
        #expect(closed == first)
        #expect(action.request == .none)
        #expect(pool.connectionEstablished(second).request == .execute(RequestID(2), on: second))
    }

    @Test func connectionsStillConnectingAreKeptForTheirWaiters() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let connecting = try #require(created(pool.enqueue(RequestID(1), key: key)))
        #expect(pool.retireConnections().isEmpty)
        #expect(pool.connectionEstablished(connecting).request == .execute(RequestID(1), on: connecting))
        #expect(pool.requestFinished(on: connecting, reusable: true) == .none)
        #expect(pool.counters(for: key) == .init(idle: 1))
    }
}
