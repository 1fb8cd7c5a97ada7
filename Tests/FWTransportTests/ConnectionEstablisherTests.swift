// ConnectionEstablisher, connected (usually within `connect` on loopback, and then settled without a loop
// iteration; `connectSucceeded` itself is SocketTests'), refused (reported by the loop: the socket turns writable)
// and still in progress (it waits for writability, and its connect timeout ends it): each reports once and leaves
// no timer behind.

import FWLoop
@testable import FWTransport
import Testing
import TestSupport

@Suite struct ConnectionEstablisherTests {
    /// What an establishment reported.
    private struct Report: Sendable {
        var connected = false
        var error: TransportError?
        var count = 0
        /// Whether the loop still had a timer once the establishment was over.
        var timerLeft: Bool?
    }

    /// Connected (a listening port) and refused (a bound, not listening one).
    @Test(arguments: [true, false])
    func aLoopbackConnectReportsOnceAndLeavesNoTimer(_ listening: Bool) throws {
        let server = try LoopbackHTTPServer { _ in .ok("unused") }
        let refusing = try RefusingPort()
        defer {
            server.stop()
            refusing.close()
        }
        let report = try establish(port: listening ? server.port : refusing.port, timeout: .seconds(5))
        #expect(report.connected == listening)
        #expect(listening ? report.error == nil : report.error?.isCannotConnectToHost == true)
        #expect(report.count == 1)
        #expect(report.timerLeft == false)
    }

    /// A connect that stays in progress (its SYNs dropped) is not decided at once: it waits, and its timeout ends it.
    @Test func aConnectInProgressWaitsForItsTimeout() throws {
        let listener = try UnacceptedListener()
        defer { listener.stop() }
        let report = try establish(port: listener.port, timeout: .milliseconds(300))
        #expect(!report.connected)
        #expect(report.error?.isTimedOut == true)
        #expect(report.count == 1)
        #expect(report.timerLeft == false)
    }

    /// Starts an establisher to 127.0.0.1:`port` on a loop of its own and waits (bounded) for its report; then
    /// asks the loop, in a later task, whether a timer is left.
    private func establish(port: Int, timeout: Duration) throws -> Report {
        let loop = try EventLoop(name: "fw-establisher-test")
        defer { loop.shutdown() }
        let report = LockedBox(Report())
        loop.execute {
            let key = ConnectionKey(scheme: "http", host: "127.0.0.1", port: port)
            let establisher = ConnectionEstablisher(key: key, loop: loop, timeout: timeout) { result, _ in
                switch result {
                case .success(let established):
                    established.unregistered(on: loop).close()
                    report.withLock { $0.connected = true; $0.count += 1 }
                case .failure(let error):
                    report.withLock { $0.error = error; $0.count += 1 }
                }
                loop.execute { report.withLock { $0.timerLeft = loop.earliestTimerDeadline() != nil } }
            }
            establisher.start()
        }
        guard waitUntil(timeout: .seconds(10), { report.withLock { $0.timerLeft != nil } }) else {
            throw TimedOut(what: "the establisher's report")
        }
        return report.withLock { $0 }
    }
}
