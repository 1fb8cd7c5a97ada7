import Foundation
@testable import FWURLSession
import FWLoop
import Testing
import TestSupport

// A session's timeouts on a manual clock (`ManualEventLoopGroup` handed over as its `SessionEngine`): the
// request timeout of every phase, the resource timeout and the earliest begin date fire when the test moves
// the clock to them, never a nanosecond before, and no test waits for wall time to pass. Each test first
// waits until the request reached the phase it tests, then moves the clock to just before the deadline (the
// delegate queue then has nothing: what a timer does reaches the queue before `advanceTime` returns), then
// past it. The wall-time versions that remain (RequestTimeoutTests) run the real loop end to end.
@Suite struct ManualClockTimeoutTests {
    typealias Phase = RequestTimeoutTests.Phase
    typealias Side = RequestTimeoutTests.Side

    /// Loops on a manual clock and a session on them; tears both down in order.
    final class ManualSession: Sendable {
        let loops: ManualEventLoopGroup
        let session: URLSession

        init(_ configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)? = nil) throws {
            loops = try ManualEventLoopGroup()
            session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil,
                                 engine: SessionEngine(group: loops.group))
        }

        deinit {
            session.invalidateAndCancel()
            loops.shutdown()
        }

        /// Moves the clock by `duration`, then lets the delegate queue run what the timers queued.
        func advance(by duration: Duration) throws {
            try loops.advanceTime(by: duration)
            session.delegateQueue.waitUntilAllOperationsAreFinished()
        }

        /// Waits (wall time, polling) until some loop has a timer: the work of a `resume` reached the loop.
        func waitForATimer() -> Bool {
            waitUntil(timeout: 5) { (try? self.loops.nextTimerDeadline()) != nil }
        }
    }

    /// Every phase on both sides but a queue behind a session-wide 1 s: on a clock that stands still the
    /// blocker's trickle makes no time pass, so its own 1 s ends with the waiter's (the wall-time test keeps
    /// that row).
    static let rows = RequestTimeoutTests.rows.filter { !($0.0 == .queue && $0.1 == .session) }

    @Test(arguments: rows)
    func theRequestTimeoutCoversThePhase(_ phase: Phase, _ side: Side) throws {
        let peer = try RequestTimeoutTests.Peer(phase)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.timeoutIntervalForRequest = side == .session ? 1 : 30
        let manual = try ManualSession(configuration)
        let session = manual.session
        var request = side == .request
            ? URLRequest(url: peer.url, cachePolicy: .useProtocolCachePolicy, timeoutInterval: 1)
            : URLRequest(url: peer.url)
        if side == .session { request.timeoutInterval = 30 }
        if phase == .queue {
            session.dataTask(with: URLRequest(url: peer.url)) { _, _, _ in }.resume()
            #expect(waitUntil(timeout: 5) { session.connectionPoolCounters(for: peer.url).leased == 1 })
        }
        let outcome = LockedBox<URLError??>(nil)
        let record: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { _, _, error in
            outcome.withLock { $0 = .some(error as? URLError) }
        }
        let task = phase == .write
            ? session.uploadTask(with: request, from: Data(count: 32 << 20), completionHandler: record)
            : session.dataTask(with: request, completionHandler: record)
        task.resume()
        #expect(waitUntil(timeout: 5) {
            let counters = session.connectionPoolCounters(for: peer.url)
            switch phase {
            case .queue: return counters.waiting == 1
            case .connect, .tls: return counters.connecting == 1
            case .write, .read: return counters.leased == 1
            }
        })
        if phase == .read { #expect(waitUntil(timeout: 5) { peer.requestCount() >= 1 }) }
        #expect(manual.waitForATimer())

        try manual.advance(by: .seconds(1) - .nanoseconds(1))
        #expect(outcome.withLock { $0 } == nil)
        // Writing is activity: a body that went out after the 100-continue wait moves the deadline on a
        // little, never past the restrictive timeout plus that wait.
        try manual.advance(by: .seconds(2))
        #expect(waitUntil(timeout: 5) { outcome.withLock { $0 } != nil })
        #expect(outcome.withLock { $0 }??.code == .timedOut)
        let blockers = phase == .queue ? 1 : 0
        #expect(waitUntil(timeout: 5) {
            let counters = session.connectionPoolCounters(for: peer.url)
            return counters.connecting == 0 && counters.waiting == 0 && counters.leased == blockers
        })
    }

    @Test func theResourceTimeoutEndsTheTaskWhenTheClockReachesIt() throws {
        let server = try ScriptedServer { connection in
            _ = try connection.readRequest()
            _ = connection.waitForClose(timeout: 10)
        }
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = 5
        let manual = try ManualSession(configuration)
        let outcome = LockedBox<URLError??>(nil)
        let url = URL(string: "http://127.0.0.1:\(server.port)/")!
        manual.session.dataTask(with: url) { _, _, error in
            outcome.withLock { $0 = .some(error as? URLError) }
        }.resume()
        #expect(waitUntil(timeout: 5) { server.requests.count == 1 })
        #expect(manual.waitForATimer())

        // The request timeout (60 s) is not what ends it.
        try manual.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(outcome.withLock { $0 } == nil)
        try manual.advance(by: .nanoseconds(1))
        #expect(waitUntil(timeout: 5) { outcome.withLock { $0 } != nil })
        #expect(outcome.withLock { $0 }??.code == .timedOut)
        #expect(waitUntil(timeout: 5) { manual.session.connectionPoolCounters(for: url).leased == 0 })
    }

    @Test func aDelayedTaskBeginsWhenTheClockReachesItsBeginDate() throws {
        let server = try LoopbackHTTPServer { _ in .ok("ok") }
        defer { server.stop() }
        let recorder = ProtocolRecorder()
        let manual = try ManualSession(.ephemeral, delegate: recorder)
        let task = manual.session.dataTask(with: url(server, "/a"))
        // A date on the session's own time line: 60 s after the manual clock's start.
        task.earliestBeginDate = manual.session.clock.date(at: manual.loops.now() + .seconds(60))
        task.resume()
        #expect(manual.waitForATimer())

        try manual.advance(by: .seconds(60) - .microseconds(1))
        #expect(!recorder.lines.contains { $0.hasPrefix("delayed") })
        #expect(server.requestCount == 0)
        try manual.advance(by: .microseconds(1))
        #expect(recorder.waitForCompletion())
        #expect(Array(recorder.lines.prefix(2)) == ["created", "delayed /a"])
        #expect(server.requestCount == 1)
    }

    @Test func aTaskCancelledWhileItWaitsForItsBeginDateLeavesNoTimerBehind() throws {
        let recorder = ProtocolRecorder()
        let manual = try ManualSession(.ephemeral, delegate: recorder)
        let task = manual.session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
        task.earliestBeginDate = manual.session.clock.date(at: manual.loops.now() + .seconds(60))
        task.resume()
        task.cancel()
        #expect(recorder.waitForCompletion())
        try manual.advance(by: .seconds(120))
        #expect(!recorder.lines.contains { $0.hasPrefix("delayed") })
        #expect((recorder.log.withLock { $0.error } as? URLError)?.code == .cancelled)
    }
}
