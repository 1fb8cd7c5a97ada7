import Testing
import TestSupport
@testable import FWTransport

// `waiter(for:)`: the request a connecting connection is being made for (whose delegate a TLS
// challenge goes to), with fake ids and no sockets.
@Suite struct ConnectionPoolStateMachineWaiterTests {
    private let key = ConnectionKey(scheme: "https", host: "example.com", port: 443)
    private let otherKey = ConnectionKey(scheme: "https", host: "other.example", port: 443)

    private func created(_ action: ConnectionPoolStateMachine.Action) -> ConnectionID? {
        if case .create(let id, _) = action.connection { return id }
        return nil
    }

    @Test func connectingConnectionsAreMatchedWithWaitersInOrder() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let first = try #require(created(pool.enqueue(RequestID(1), key: key)))
        let second = try #require(created(pool.enqueue(RequestID(2), key: key)))
        #expect(created(pool.enqueue(RequestID(3), key: key)) == nil, "at the limit: request 3 waits")
        #expect(pool.waiter(for: first) == RequestID(1))
        #expect(pool.waiter(for: second) == RequestID(2))
        // The first connection takes request 1; the second one is still for the next waiter, request 2.
        #expect(pool.connectionEstablished(first).request == .execute(RequestID(1), on: first))
        #expect(pool.waiter(for: first) == nil, "an established connection is for no waiter")
        #expect(pool.waiter(for: second) == RequestID(2))
    }

    @Test func aHigherPriorityWaiterIsServedFirst() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let connection = try #require(created(pool.enqueue(RequestID(1), key: key, priority: 500)))
        _ = pool.enqueue(RequestID(2), key: key, priority: 900)
        #expect(pool.waiter(for: connection) == RequestID(2), "the waiter the connection will serve first")
    }

    @Test func aConnectionWhoseWaitersLeftIsForNobody() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let connection = try #require(created(pool.enqueue(RequestID(1), key: key)))
        #expect(pool.cancelWaiting(RequestID(1), key: key).request == .fail(RequestID(1)))
        #expect(pool.waiter(for: connection) == nil)
        #expect(pool.waiter(for: ConnectionID(99)) == nil, "unknown connection")
    }

    @Test func keysAreMatchedSeparately() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let a = try #require(created(pool.enqueue(RequestID(1), key: key)))
        let b = try #require(created(pool.enqueue(RequestID(2), key: otherKey)))
        #expect(pool.waiter(for: a) == RequestID(1))
        #expect(pool.waiter(for: b) == RequestID(2))
    }
}
