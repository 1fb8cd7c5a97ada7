// EventLoopClock: the real clock, and loops and groups reading the clock they are given.

import Testing

@testable import FWLoop
import TestSupport

/// A clock stopped at one time.
private struct StoppedClock: EventLoopClock {
    let time: Deadline

    func now() -> Deadline {
        time
    }

    var advancesByItself: Bool {
        false
    }
}

@Suite struct EventLoopClockTests {
    private static let stopped = Deadline(uptimeNanoseconds: 5_000_000_000)

    @Test func theMonotonicClockIsDeadlineNow() {
        let clock = MonotonicClock()
        #expect(clock.advancesByItself)
        let before = Deadline.now()
        let reading = clock.now()
        #expect(before <= reading && reading <= Deadline.now())
    }

    @Test func aLoopReadsTheRealClockByDefault() throws {
        try withLoop { loop in
            let before = Deadline.now()
            let reading = try onLoop(loop) { loop.now() }
            #expect(before <= reading && reading <= Deadline.now())
        }
    }

    @Test func aLoopRunsItsTimersByItsOwnClock() throws {
        let loop = try EventLoop(name: "fw-test", clock: StoppedClock(time: Self.stopped))
        defer {
            loop.shutdown()
        }
        #expect(loop.now() == Self.stopped)
        let fired = LockedBox<[String]>([])
        try onLoop(loop) {
            loop.scheduleTimer(at: Self.stopped + .nanoseconds(1)) { fired.withLock { $0.append("ahead") } }
            loop.scheduleTimer(at: Self.stopped) { fired.withLock { $0.append("due") } }
        }
        #expect(waitUntil { fired.withLock { !$0.isEmpty } })
        // The stopped clock never reaches the other one, and the loop still runs tasks while it waits.
        try waitForFullIteration(loop)
        #expect(fired.withLock { $0 } == ["due"])
        #expect(try onLoop(loop) { loop.earliestTimerDeadline() } == Self.stopped + .nanoseconds(1))
    }

    @Test func aGroupGivesItsClockToEveryLoop() throws {
        let group = try EventLoopGroup(loopCount: 2, namePrefix: "fw-test", clock: StoppedClock(time: Self.stopped))
        defer {
            group.shutdown()
        }
        #expect(group.loops.map { $0.now() } == [Self.stopped, Self.stopped])
    }
}
