import FWLoop
import FWTransport
import FWWire
import Testing
import TestSupport

// Requests that wait for a connection: each keeps its own deadline, counted from `execute`, and the
// connection made for one does not outlive it.
@Suite struct HTTPTransportWaitingTests {
    // A connection made for a request that may wait 0.5 s gives up after 0.5 s; the request queued behind it
    // with 3 s must not inherit that failure: it gets its own attempt and ends at its own deadline.
    @Test func aRequestKeepsItsOwnDeadlineWhenTheConnectionMadeForAnotherTimesOut() throws {
        let listener = try UnacceptedListener()
        defer { listener.stop() }
        let fixture = try TransportFixture(HTTPTransport.Configuration(maxConnectionsPerHost: 1))
        defer { fixture.close() }
        let short = RecordingDelegate(), long = RecordingDelegate()
        let start = ContinuousClock.now
        fixture.transport.execute(getRequest(port: listener.port, idleTimeout: .milliseconds(500)), delegate: short)
        fixture.transport.execute(getRequest(port: listener.port, idleTimeout: .seconds(3)), delegate: long)
        #expect(short.outcome(timeout: 10).error?.isTimedOut == true)
        let shortEnded = ContinuousClock.now - start
        #expect(long.outcome(timeout: 10).error?.isTimedOut == true)
        let longEnded = ContinuousClock.now - start
        #expect(shortEnded < .milliseconds(2500))
        #expect(longEnded >= .milliseconds(2950))
        #expect(longEnded < .seconds(6))
        let key = ConnectionKey(scheme: "http", host: "127.0.0.1", port: listener.port)
        #expect(waitUntil(timeout: 3) { fixture.transport.counters(for: key) == ConnectionPoolCounters() })
    }
}
