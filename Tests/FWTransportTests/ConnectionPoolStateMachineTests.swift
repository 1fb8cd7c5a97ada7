import Testing
import TestSupport
@testable import FWTransport

// The pool as a pure state machine: fake request ids, no sockets, no threads.
@Suite struct ConnectionPoolStateMachineTests {
    private let key = ConnectionKey(scheme: "http", host: "example.com", port: 80)
    private let otherKey = ConnectionKey(scheme: "http", host: "other.example", port: 80)

    private func request(_ n: UInt64) -> RequestID { RequestID(n) }

    private func created(_ action: ConnectionPoolStateMachine.Action) -> ConnectionID? {
        if case .create(let id, _) = action.connection { return id }
        return nil
    }

    @Test func firstRequestCreatesAConnectionAndRunsOnItOnceEstablished() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let connection = try #require(created(pool.enqueue(request(1), key: key)))
        #expect(pool.counters(for: key) == .init(connecting: 1, waiting: 1))
        #expect(pool.connectionEstablished(connection).request == .execute(request(1), on: connection))
        #expect(pool.counters(for: key) == .init(leased: 1))
    }

    @Test func anIsolatedPartitionsConnectionNeverParksAndItsKeyLeaves() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let isolated = key.isolated()
        // Its request was cancelled while the connection was made: the connection closes instead of parking.
        let cancelled = try #require(created(pool.enqueue(request(1), key: isolated, requiresNewConnection: true)))
        #expect(pool.cancelWaiting(request(1), key: isolated).request == .fail(request(1)))
        #expect(pool.connectionEstablished(cancelled).connection == .close(cancelled))
        #expect(pool.keys.isEmpty)
        // Its request ran: the connection (not reusable) leaves, and so does the key.
        let other = key.isolated()
        let served = try #require(created(pool.enqueue(request(2), key: other, requiresNewConnection: true)))
        #expect(pool.connectionEstablished(served).request == .execute(request(2), on: served))
        _ = pool.requestFinished(on: served, reusable: false)
        #expect(pool.keys.isEmpty)
    }

    @Test func theLimitIsNeverExceededAndWaitersAreServedFIFO() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        var connections: [ConnectionID] = []
        for n in 1...6 {
            if let id = created(pool.enqueue(request(UInt64(n)), key: key)) { connections.append(id) }
        }
        #expect(connections.count == 2)
        #expect(pool.counters(for: key) == .init(connecting: 2, waiting: 6))
        #expect(pool.connectionEstablished(connections[0]).request == .execute(request(1), on: connections[0]))
        #expect(pool.connectionEstablished(connections[1]).request == .execute(request(2), on: connections[1]))
        var served: [RequestID] = []
        for round in 0..<4 {
            let connection = connections[round % 2]
            let action = pool.requestFinished(on: connection, reusable: true)
            guard case .execute(let next, on: connection) = action.request else {
                Issue.record("expected the next waiter on \(connection), got \(action)")
                return
            }
            #expect(action.connection == .none)
            served.append(next)
            #expect(pool.counters(for: key).open == 2)
        }
        #expect(served == [3, 4, 5, 6].map(request))
    }

    @Test func idleConnectionsAreReusedLastInFirstOut() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 4)
        let a = try #require(created(pool.enqueue(request(1), key: key)))
        let b = try #require(created(pool.enqueue(request(2), key: key)))
        _ = pool.connectionEstablished(a)
        _ = pool.connectionEstablished(b)
        #expect(pool.requestFinished(on: a, reusable: true) == .none)
        #expect(pool.requestFinished(on: b, reusable: true) == .none)
        #expect(pool.counters(for: key) == .init(idle: 2))
        #expect(pool.enqueue(request(3), key: key).request == .execute(request(3), on: b))
        #expect(pool.enqueue(request(4), key: key).request == .execute(request(4), on: a))
    }

    @Test func keysHaveIndependentLimits() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        #expect(created(pool.enqueue(request(1), key: key)) != nil)
        #expect(created(pool.enqueue(request(2), key: otherKey)) != nil)
        #expect(created(pool.enqueue(request(3), key: key)) == nil)
        #expect(pool.counters(for: key).waiting == 2)
        #expect(pool.counters(for: otherKey).waiting == 1)
    }

    @Test func aFailedAttemptFailsTheOldestWaiterAndRetriesForTheRest() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let first = try #require(created(pool.enqueue(request(1), key: key)))
        _ = pool.enqueue(request(2), key: key)
        let action = pool.connectionFailed(first)
        #expect(action.request == .fail(request(1)))
        let second = try #require(created(action))
        #expect(second != first)
        #expect(pool.connectionFailed(second).request == .fail(request(2)))
        #expect(pool.counters(for: key) == .init())
    }

    @Test func aConnectionOpenedForACancelledWaiterGoesIdle() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let connection = try #require(created(pool.enqueue(request(1), key: key)))
        #expect(pool.cancelWaiting(request(1), key: key).request == .fail(request(1)))
        #expect(pool.cancelWaiting(request(1), key: key) == .none)
        #expect(pool.connectionEstablished(connection) == .none)
        #expect(pool.counters(for: key) == .init(idle: 1))
        #expect(pool.enqueue(request(2), key: key).request == .execute(request(2), on: connection))
    }

    @Test func aNonReusableConnectionLeavesAndIsReplacedForWaiters() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let first = try #require(created(pool.enqueue(request(1), key: key)))
        _ = pool.enqueue(request(2), key: key)
        _ = pool.connectionEstablished(first)
        let action = pool.requestFinished(on: first, reusable: false)
        let replacement = try #require(created(action))
        #expect(pool.connectionEstablished(replacement).request == .execute(request(2), on: replacement))
    }

    @Test func aRetryNeverTakesAParkedConnection() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let a = try #require(created(pool.enqueue(request(1), key: key)))
        _ = pool.connectionEstablished(a)
        _ = pool.requestFinished(on: a, reusable: true)
        let action = pool.enqueue(request(2), key: key, requiresNewConnection: true)
        let fresh = try #require(created(action))
        #expect(fresh != a)
        #expect(pool.connectionEstablished(fresh).request == .execute(request(2), on: fresh))
    }

    @Test func aRetryAtTheLimitReplacesTheOldestIdleConnection() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let a = try #require(created(pool.enqueue(request(1), key: key)))
        let b = try #require(created(pool.enqueue(request(2), key: key)))
        _ = pool.connectionEstablished(a)
        _ = pool.connectionEstablished(b)
        _ = pool.requestFinished(on: a, reusable: true)
        _ = pool.requestFinished(on: b, reusable: true)
        let action = pool.enqueue(request(3), key: key, requiresNewConnection: true)
        guard case .closeAndCreate(close: a, create: let fresh, key: key) = action.connection else {
            Issue.record("expected the oldest idle connection to make room, got \(action)")
            return
        }
        #expect(pool.counters(for: key) == .init(connecting: 1, idle: 1, waiting: 1))
        #expect(pool.connectionEstablished(fresh).request == .execute(request(3), on: fresh))
    }

    @Test func idleTimeoutClosesOnlyIdleConnections() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let a = try #require(created(pool.enqueue(request(1), key: key)))
        _ = pool.connectionEstablished(a)
        #expect(pool.idleTimeoutFired(a) == .none)
        _ = pool.requestFinished(on: a, reusable: true)
        #expect(pool.idleTimeoutFired(a).connection == .close(a))
        #expect(pool.counters(for: key) == .init())
        #expect(pool.idleTimeoutFired(a) == .none)
    }

    @Test func aPeerClosedIdleConnectionLeavesThePool() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let a = try #require(created(pool.enqueue(request(1), key: key)))
        _ = pool.connectionEstablished(a)
        _ = pool.requestFinished(on: a, reusable: true)
        #expect(pool.connectionClosed(a) == .none)
        #expect(created(pool.enqueue(request(2), key: key)) != nil)
    }

    @Test func shutdownFailsWaitersClosesIdleAndRefusesNewWork() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let a = try #require(created(pool.enqueue(request(1), key: key)))
        _ = pool.enqueue(request(2), key: key)
        let b = try #require(created(pool.enqueue(request(3), key: otherKey)))
        _ = pool.connectionEstablished(a)
        _ = pool.connectionEstablished(b)
        _ = pool.requestFinished(on: b, reusable: true)
        let shutdown = pool.shutdown()
        #expect(shutdown.fail == [request(2)])
        #expect(shutdown.close == [b])
        #expect(pool.enqueue(request(4), key: key).request == .fail(request(4)))
        #expect(pool.requestFinished(on: a, reusable: true).connection == .close(a))
    }

    @Test func higherPriorityWaitersGoFirstAndEqualOnesKeepTheirOrder() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 1)
        let connection = try #require(created(pool.enqueue(request(1), key: key, priority: 500)))
        _ = pool.connectionEstablished(connection)
        _ = pool.enqueue(request(2), key: key, priority: 250)
        _ = pool.enqueue(request(3), key: key, priority: 750)
        _ = pool.enqueue(request(4), key: key, priority: 500)
        _ = pool.enqueue(request(5), key: key, priority: 750)
        var order: [RequestID] = []
        for _ in 0..<4 {
            guard case .execute(let next, on: connection) = pool.requestFinished(on: connection, reusable: true).request
            else { Issue.record("no waiter served"); return }
            order.append(next)
        }
        #expect(order == [3, 5, 4, 2].map(request))
    }

    @Test func parkingBeyondTheIdleCapClosesTheOldest() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 3, maxIdleConnectionsPerHost: 1)
        let a = try #require(created(pool.enqueue(request(1), key: key)))
        let b = try #require(created(pool.enqueue(request(2), key: key)))
        _ = pool.connectionEstablished(a)
        _ = pool.connectionEstablished(b)
        #expect(pool.requestFinished(on: a, reusable: true) == .none)
        #expect(pool.requestFinished(on: b, reusable: true).connection == .close(a))
        #expect(pool.counters(for: key) == .init(idle: 1))
    }

    @Test func loweringTheLimitKeepsOpenConnectionsAndRaisingItServesWaiters() throws {
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: 2)
        let a = try #require(created(pool.enqueue(request(1), key: key)))
        let b = try #require(created(pool.enqueue(request(2), key: key)))
        _ = pool.connectionEstablished(a)
        _ = pool.connectionEstablished(b)
        #expect(pool.setMaxConnectionsPerHost(1).isEmpty)
        #expect(pool.counters(for: key).leased == 2)
        _ = pool.enqueue(request(3), key: key)
        _ = pool.enqueue(request(4), key: key)
        // A connection that closes is not replaced while the key is at or over the new limit.
        #expect(pool.requestFinished(on: a, reusable: false) == .none)
        let raised = pool.setMaxConnectionsPerHost(3)
        #expect(raised.count == 2)
        #expect(pool.counters(for: key) == .init(connecting: 2, leased: 1, waiting: 2))
    }

    /// Random walks through every input: the per-host limit holds after every step.
    @Test(arguments: 1...20)
    func theLimitHoldsOnRandomWalks(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        let limit = Int(seed % 4) + 1
        var pool = ConnectionPoolStateMachine(maxConnectionsPerHost: limit)
        var connecting: [ConnectionID] = [], leased: [ConnectionID] = [], idle: [ConnectionID] = []
        var waiting: [RequestID] = []
        var nextRequest: UInt64 = 1

        func apply(_ action: ConnectionPoolStateMachine.Action) {
            switch action.connection {
            case .none: break
            case .create(let id, _): connecting.append(id)
            case .close(let id): idle.removeAll { $0 == id }
            case .closeAndCreate(let closed, let id, _):
                idle.removeAll { $0 == closed }
                connecting.append(id)
            }
            switch action.request {
            case .none: break
            case .execute(let request, let connection):
                waiting.removeAll { $0 == request }
                idle.removeAll { $0 == connection }
                leased.append(connection)
            case .fail(let request): waiting.removeAll { $0 == request }
            case .executeAll: Issue.record("no request asked for pipelining")
            }
        }

        for _ in 0..<300 {
            switch generator.next() % 6 {
            case 0, 1:
                let id = RequestID(nextRequest)
                nextRequest += 1
                waiting.append(id)
                apply(pool.enqueue(id, key: key, requiresNewConnection: generator.next() % 5 == 0))
            case 2 where !connecting.isEmpty:
                let id = connecting.removeFirst()
                if generator.next() % 4 == 0 {
                    apply(pool.connectionFailed(id))
                } else {
                    idle.append(id)
                    apply(pool.connectionEstablished(id))
                }
            case 3 where !leased.isEmpty:
                let id = leased.remove(at: Int(generator.next() % UInt64(leased.count)))
                let reusable = generator.next() % 3 != 0
                if reusable { idle.append(id) }
                apply(pool.requestFinished(on: id, reusable: reusable))
            case 4 where !waiting.isEmpty:
                apply(pool.cancelWaiting(waiting[Int(generator.next() % UInt64(waiting.count))], key: key))
            case 5 where !idle.isEmpty:
                apply(pool.idleTimeoutFired(idle[0]))
            default:
                break
            }
            let counters = pool.counters(for: key)
            #expect(counters.open <= limit)
            #expect(counters.open == connecting.count + leased.count + idle.count)
            #expect(counters.waiting == waiting.count)
        }
    }
}
