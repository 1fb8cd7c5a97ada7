import FWLoop
import FWWire
import Testing
import TestSupport
@testable import FWTransport

// Connection racing without sockets or clocks.
@Suite struct HappyEyeballsStateMachineTests {
    private let v6a = SocketAddress(numericHost: "2001:db8::1", port: 80)!
    private let v6b = SocketAddress(numericHost: "2001:db8::2", port: 80)!
    private let v4a = SocketAddress(numericHost: "192.0.2.1", port: 80)!
    private let v4b = SocketAddress(numericHost: "192.0.2.2", port: 80)!
    private let refused = IOError(errno: 111, call: "connect")

    @Test func ordersIPv6FirstThenAlternates() {
        #expect(HappyEyeballsStateMachine.interleaved([v4a, v4b, v6a, v6b]) == [v6a, v4a, v6b, v4b])
        #expect(HappyEyeballsStateMachine.interleaved([v4a, v4b]) == [v4a, v4b])
        #expect(HappyEyeballsStateMachine.interleaved([v6a, v4a, v4b]) == [v6a, v4a, v4b])
    }

    @Test func startsOneAttemptAndTheNextAfterTheDelay() {
        var machine = HappyEyeballsStateMachine()
        #expect(machine.resolved([v4a, v6a]) == [.startAttempt(0, v6a), .scheduleDelay])
        #expect(machine.delayElapsed() == [.startAttempt(1, v4a)])
        #expect(machine.delayElapsed() == [])
        // The IPv4 attempt wins; the slow IPv6 one is closed.
        #expect(machine.attemptConnected(1) == [.closeAttempts([0]), .succeed(1)])
        #expect(machine.attemptFailed(0, error: refused) == [])
    }

    @Test func aFailureStartsTheNextAttemptAtOnce() {
        var machine = HappyEyeballsStateMachine()
        _ = machine.resolved([v6a, v4a, v4b])
        #expect(machine.attemptFailed(0, error: refused) == [.startAttempt(1, v4a), .scheduleDelay])
        #expect(machine.attemptConnected(1) == [.succeed(1)])
    }

    @Test func failsOnlyWhenEveryAttemptFailed() {
        var machine = HappyEyeballsStateMachine()
        _ = machine.resolved([v6a, v4a])
        _ = machine.delayElapsed()
        #expect(machine.attemptFailed(1, error: refused) == [])
        let timedOut = IOError(errno: 110, call: "connect")
        #expect(machine.attemptFailed(0, error: timedOut) == [.fail(timedOut)])
    }

    /// Which error a race whose attempts all failed reports: the last, unless it is "no route" and another
    /// failure came first.
    @Test(arguments: [
        ([111, 101], 111), // refused, then no route (ENETUNREACH): refused
        ([101, 111], 111), // no route, then refused: refused
        ([101, 113], 101), // no route twice (ENETUNREACH, EHOSTUNREACH): the first
        ([113, 101], 113),
        ([110, 111], 111), // timed out, then refused: the last
    ] as [([Int32], Int32)])
    func noRouteNeverHidesAnotherFailure(errnos: [Int32], reported: Int32) {
        var machine = HappyEyeballsStateMachine()
        _ = machine.resolved([v4a, v4b])
        _ = machine.attemptFailed(0, error: IOError(errno: errnos[0], call: "connect"))
        let final = machine.attemptFailed(1, error: IOError(errno: errnos[1], call: "connect"))
        #expect(final == [.fail(IOError(errno: reported, call: "connect"))])
    }

    @Test func abandoningClosesWhatIsInFlight() {
        var machine = HappyEyeballsStateMachine()
        _ = machine.resolved([v6a, v4a])
        _ = machine.delayElapsed()
        #expect(machine.abandon() == [.closeAttempts([0, 1])])
        #expect(machine.attemptConnected(0) == [])
    }

    /// `localhost` resolves to ::1 and 127.0.0.1; a server on 127.0.0.1 only refuses the IPv6 attempt and
    /// the IPv4 one wins.
    @Test func localhostFallsBackToIPv4() throws {
        let server = try LoopbackHTTPServer { _ in .ok("v4") }
        defer { server.stop() }
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let request = TransportRequest(key: ConnectionKey(scheme: "http", host: "localhost", port: server.port),
                                       head: HTTPRequestHead(method: "GET", target: "/", headers: HTTPHeaders()))
        let outcome = fixture.run(request)
        #expect(outcome.bodyText == "v4")
        #expect(outcome.connection?.remoteAddress?.hasPrefix("127.0.0.1") == true)
    }
}
