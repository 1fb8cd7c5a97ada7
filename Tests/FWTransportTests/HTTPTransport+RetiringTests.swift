import FWTransport
import Testing
import TestSupport

// `retireConnections()` on real connections: an idle connection closes at once and one in use closes when
// its request ends, so the next request opens a new connection; the transport keeps working.
@Suite struct HTTPTransportRetiringTests {
    @Test func anIdleConnectionClosesAndTheNextRequestOpensANewOne() throws {
        let server = try LoopbackHTTPServer { _ in .ok("x") }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let key = ConnectionKey(scheme: "http", host: "127.0.0.1", port: server.port)
        #expect(fixture.run(getRequest(port: server.port)).bodyText == "x")
        #expect(waitUntil(timeout: 5) { fixture.transport.counters(for: key).idle == 1 })
        fixture.transport.retireConnections()
        #expect(fixture.transport.counters(for: key).idle == 0)
        let next = fixture.run(getRequest(port: server.port))
        #expect(next.bodyText == "x")
        #expect(next.connection?.isReused == false)
        #expect(server.connectionCount == 2)
    }

    @Test func aConnectionInUseClosesWhenItsRequestEnds() throws {
        let arrived = LockedBox(false)
        let server = try LoopbackHTTPServer { _ in
            arrived.withLock { $0 = true }
            var reply = LoopbackHTTPServer.Reply.ok("slow")
            reply.delay = 0.3
            return reply
        }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let key = ConnectionKey(scheme: "http", host: "127.0.0.1", port: server.port)
        let delegate = RecordingDelegate()
        fixture.transport.execute(getRequest(port: server.port), delegate: delegate)
        #expect(waitUntil(timeout: 5) { arrived.withLock { $0 } })
        fixture.transport.retireConnections()
        #expect(delegate.outcome().bodyText == "slow")
        #expect(waitUntil(timeout: 5) { fixture.transport.counters(for: key) == ConnectionPoolCounters() })
        #expect(fixture.run(getRequest(port: server.port)).connection?.isReused == false)
    }
}
