import Testing
@testable import FWTransport

// The pool's side of pipelining: fake ids, no sockets. A pipelinable request joins a leased connection's
// pipeline before a new connection opens, up to the depth; a new or freed connection takes the pipelinable
// waiters at the front; requests leaving early close the pipeline; non-pipelinable ones never share.
@Suite struct ConnectionPoolPipeliningTests {
    private let key = ConnectionKey(scheme: "http", host: "example.com", port: 80)

    private func r(_ n: UInt64) -> RequestID { RequestID(n) }

    private func created(_ action: ConnectionPoolStateMachine.Action) -> ConnectionID? {
        if case .create(let id, _) = action.connection { return id }
        return nil
    }

    /// A pool with one established connection leased to pipelinable R1.
    private func leasedPool(depth: Int = 3, limit: Int = 6) throws -> (ConnectionPoolStateMachine, ConnectionID) {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: limit, pipeliningDepth: depth)
        let connection = try #require(created(pool.enqueue(r(1), key: key, pipelinable: true)))
        #expect(pool.connectionEstablished(connection).request == .execute(r(1), on: connection))
        return (pool, connection)
    }

    @Test func pipelinableRequestsWaitingForANewConnectionShareIt() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 6, pipeliningDepth: 4)
        let connection = try #require(created(pool.enqueue(r(1), key: key, pipelinable: true)))
        #expect(created(pool.enqueue(r(2), key: key, pipelinable: true)) == nil)
        #expect(created(pool.enqueue(r(3), key: key, pipelinable: true)) == nil)
        #expect(pool.connectionEstablished(connection).request == .executeAll([r(1), r(2), r(3)], on: connection))
        #expect(pool.counters(for: key) == .init(leased: 1))
        #expect(pool.connection(leasedTo: r(3), key: key) == connection)
    }

    @Test func aPipelinableRequestJoinsALeasedConnectionUpToTheDepth() throws {
        var (pool, connection) = try leasedPool(depth: 3)
        #expect(pool.enqueue(r(2), key: key, pipelinable: true).request == .execute(r(2), on: connection))
        #expect(pool.enqueue(r(3), key: key, pipelinable: true).request == .execute(r(3), on: connection))
        // Full: the fourth waits for a new connection.
        let fourth = pool.enqueue(r(4), key: key, pipelinable: true)
        #expect(fourth.request == .none)
        #expect(created(fourth) != nil)
    }

    @Test func aRequestThatIsNotPipelinableNeverShares() throws {
        var (pool, connection) = try leasedPool()
        let post = pool.enqueue(r(2), key: key)
        #expect(post.request == .none)
        #expect(created(post) != connection && created(post) != nil)
    }

    @Test func aFinishedRequestFreesRoomForTheNextWaiter() throws {
        var (pool, connection) = try leasedPool(depth: 2, limit: 1)
        #expect(pool.enqueue(r(2), key: key, pipelinable: true).request == .execute(r(2), on: connection))
        #expect(pool.enqueue(r(3), key: key, pipelinable: true) == .none)
        // Whichever request the connection finishes first, the waiter takes its place.
        #expect(pool.requestFinished(on: connection, reusable: true, request: r(1)).request
            == .execute(r(3), on: connection))
        #expect(pool.requestFinished(on: connection, reusable: true, request: r(3)) == .none)
        #expect(pool.requestFinished(on: connection, reusable: true, request: r(2)) == .none)
        #expect(pool.counters(for: key) == .init(idle: 1))
    }

    @Test func aPipelineThatLostARequestTakesNoMore() throws {
        var (pool, connection) = try leasedPool(depth: 4, limit: 1)
        #expect(pool.enqueue(r(2), key: key, pipelinable: true).request == .execute(r(2), on: connection))
        pool.requestLeft(r(2), connection: connection)
        #expect(pool.connection(leasedTo: r(2), key: key) == nil)
        #expect(pool.enqueue(r(3), key: key, pipelinable: true) == .none)
        #expect(pool.isWaiting(r(3), key: key))
    }

    @Test func aConnectionThatClosesLeavesItsFollowersToTheOwner() throws {
        var (pool, connection) = try leasedPool(limit: 1)
        #expect(pool.enqueue(r(2), key: key, pipelinable: true).request == .execute(r(2), on: connection))
        _ = pool.requestFinished(on: connection, reusable: false, request: r(1))
        #expect(pool.connection(leasedTo: r(2), key: key) == nil)
        #expect(pool.counters(for: key) == .init())
        // Replayed on a new connection, the follower opens one.
        #expect(created(pool.enqueue(r(2), key: key, requiresNewConnection: true, pipelinable: true)) != nil)
    }

    @Test func withoutPipeliningDepthNothingShares() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 6)
        let first = try #require(created(pool.enqueue(r(1), key: key, pipelinable: true)))
        #expect(created(pool.enqueue(r(2), key: key, pipelinable: true)) != nil)
        #expect(pool.connectionEstablished(first).request == .execute(r(1), on: first))
    }
}
