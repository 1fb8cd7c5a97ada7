// ManualEventLoopGroup (TestSupport): timers fire exactly when the test advances past their deadline, in
// order, stepping the clock from deadline to deadline; I/O and tasks still work while time stands still.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

@testable import FWLoop

// MARK: - Helpers

/// Timers that record their name and the loop time they saw, in milliseconds after the clock's start.
private final class TimerLog: Sendable {
    let entries = LockedBox<[(name: String, at: Int)]>([])

    var names: [String] {
        entries.withLock { $0.map(\.name) }
    }

    /// Loop thread only: schedules a timer `milliseconds` after the clock's start that records itself.
    func schedule(_ name: String, at milliseconds: Int, on loop: EventLoop, then: @escaping () -> Void = {}) {
        loop.scheduleTimer(at: ManualEventLoopGroup.start + .milliseconds(milliseconds)) { [self] in
            record(name, on: loop)
            then()
        }
    }

    /// Records `name` with the loop's time.
    func record(_ name: String, on loop: EventLoop) {
        let milliseconds = Int((loop.now() - ManualEventLoopGroup.start) / .milliseconds(1))
        entries.withLock { $0.append((name, milliseconds)) }
    }
}

/// Creates a manual-clock group for one test and shuts it down afterwards.
private func withManualLoops<T>(loopCount: Int = 1, _ body: (ManualEventLoopGroup) throws -> T) throws -> T {
    let loops = try ManualEventLoopGroup(loopCount: loopCount, namePrefix: "fw-manual")
    defer {
        loops.shutdown()
    }
    return try body(loops)
}

// MARK: - Firing

@Suite struct ManualEventLoopGroupTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Timers by name and deadline (ms after the start), scheduled in this order.
        let timers: [(String, Int)]
        /// Advance to this time (ms after the start), then expect these timers to have fired, in order.
        let steps: [(Int, [String])]

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "fires at its deadline, not before", timers: [("a", 10)], steps: [(9, []), (10, ["a"])]),
        Case(name: "deadline order", timers: [("c", 30), ("a", 10), ("b", 20), ("d", 1), ("e", 15)],
             steps: [(30, ["d", "a", "e", "b", "c"])]),
        Case(name: "equal deadlines in schedule order", timers: [("x1", 5), ("x2", 5), ("x3", 5)],
             steps: [(5, ["x1", "x2", "x3"])]),
        Case(name: "over several advances", timers: [("a", 10), ("b", 20), ("c", 30)],
             steps: [(15, ["a"]), (25, ["a", "b"]), (25, ["a", "b"]), (100, ["a", "b", "c"])]),
        Case(name: "a target in the past moves nothing", timers: [("a", 10), ("b", 20)],
             steps: [(10, ["a"]), (5, ["a"]), (20, ["a", "b"])]),
        Case(name: "no timers", timers: [], steps: [(50, [])]),
    ]

    @Test(arguments: cases)
    func timersFireWhenTheClockPassesTheirDeadline(_ test: Case) throws {
        try withManualLoops { loops in
            let log = TimerLog()
            let loop = loops.loop
            try onLoop(loop) {
                for (name, deadline) in test.timers {
                    log.schedule(name, at: deadline, on: loop)
                }
            }
            var shown = 0
            for (target, expected) in test.steps {
                try loops.advanceTime(to: ManualEventLoopGroup.start + .milliseconds(target))
                shown = max(shown, target)
                #expect(log.names == expected, "after advancing to \(target) ms")
                #expect(loops.now() == ManualEventLoopGroup.start + .milliseconds(shown))
            }
            // Time moved in steps: every timer saw its own deadline as the time.
            let deadlines = Dictionary(test.timers, uniquingKeysWith: { first, _ in first })
            #expect(log.entries.withLock { $0.allSatisfy { deadlines[$0.name] == $0.at } })
        }
    }

    @Test func advanceByMovesRelativeToNow() throws {
        try withManualLoops { loops in
            let log = TimerLog()
            try onLoop(loops.loop) { log.schedule("a", at: 250, on: loops.loop) }
            try loops.advanceTime(by: .milliseconds(100))
            try loops.advanceTime(by: .milliseconds(100))
            #expect(log.names.isEmpty)
            try loops.advanceTime(by: .milliseconds(-50))
            #expect(loops.now() == ManualEventLoopGroup.start + .milliseconds(200))
            try loops.advanceTime(by: .milliseconds(50))
            #expect(log.names == ["a"])
        }
    }

    @Test func timersArmedByATimerUpToTheTargetFireInTheSameAdvance() throws {
        try withManualLoops { loops in
            let log = TimerLog()
            let loop = loops.loop
            try onLoop(loop) {
                log.schedule("outer", at: 10, on: loop) {
                    loop.scheduleTimer(at: loop.now()) { log.record("now", on: loop) }
                    loop.scheduleTimer(at: loop.now() + .milliseconds(-5)) { log.record("past", on: loop) }
                    loop.scheduleTimer(at: loop.now() + .milliseconds(5)) { log.record("inner", on: loop) }
                    loop.scheduleTimer(at: loop.now() + .milliseconds(50)) { log.record("beyond", on: loop) }
                }
            }
            try loops.advanceTime(by: .milliseconds(20))
            let seen = log.entries.withLock { $0.map { "\($0.name)@\($0.at)" } }
            // Deadline order: the one armed in the past (5 ms) before the one armed at the time (10 ms); both
            // see the time of the step they ran in.
            #expect(seen == ["outer@10", "past@10", "now@10", "inner@15"])
            try loops.advanceTime(by: .milliseconds(40))
            #expect(log.names.last == "beyond")
        }
    }

    @Test func workATimerQueuesForTheEndOfItsIterationIsDoneOnReturn() throws {
        try withManualLoops { loops in
            let log = TimerLog()
            let loop = loops.loop
            try onLoop(loop) {
                log.schedule("timer", at: 10, on: loop) {
                    loop.atEndOfIteration {
                        log.record("end of iteration", on: loop)
                        loop.scheduleTimer(at: loop.now()) { log.record("armed there", on: loop) }
                    }
                }
            }
            // Exactly to the deadline: no round of questions after the one that ran the timer is needed to move
            // the clock, yet the timer's end-of-iteration work, and the timer that work armed, are done.
            try loops.advanceTime(to: ManualEventLoopGroup.start + .milliseconds(10))
            #expect(log.names == ["timer", "end of iteration", "armed there"])
        }
    }

    @Test func timersOnSeveralLoopsFireInDeadlineOrder() throws {
        try withManualLoops(loopCount: 2) { loops in
            let log = TimerLog()
            let (first, second) = (loops.group.loops[0], loops.group.loops[1])
            try onLoop(first) {
                log.schedule("a", at: 10, on: first)
                log.schedule("c", at: 30, on: first)
            }
            try onLoop(second) {
                log.schedule("b", at: 20, on: second)
                log.schedule("d", at: 40, on: second)
            }
            #expect(try loops.nextTimerDeadline() == ManualEventLoopGroup.start + .milliseconds(10))
            try loops.advanceTime(by: .milliseconds(40))
            #expect(log.names == ["a", "b", "c", "d"])
            #expect(try loops.nextTimerDeadline() == nil)
        }
    }

    @Test func codeOnTheLoopReadsTheManualTime() throws {
        try withManualLoops { loops in
            #expect(loops.now() == ManualEventLoopGroup.start)
            try loops.advanceTime(by: .seconds(90))
            let seen = try onLoop(loops.loop) { loops.loop.now() }
            #expect(seen == ManualEventLoopGroup.start + .seconds(90))
            #expect(loops.loop.now() == loops.now())
        }
    }
}

// MARK: - I/O while time stands still

@Suite struct ManualEventLoopGroupIOTests {
    @Test func ioIsDeliveredAndTimersWaitForTheClock() throws {
        try withManualLoops { loops in
            let loop = loops.loop
            let (left, right) = try makeSocketPair()
            defer {
                close(left)
                close(right)
            }
            let fired = LockedBox(false)
            let events = LockedBox<[IOEvents]>([])
            let id = try onLoop(loop) {
                // Due as soon as any real time passes: only the manual clock keeps it from firing.
                loop.scheduleTimer(at: loop.now() + .nanoseconds(1)) { fired.withLock { $0 = true } }
                let handler = RecordingHandler { happened in events.withLock { $0.append(happened) } }
                return try loop.register(fd: left, interest: .readable, handler: handler)
            }
            try writeAll(right, "ping")
            #expect(waitUntil { events.withLock { $0.contains(.readable) } })
            try waitForFullIteration(loop)
            #expect(!fired.withLock { $0 })
            try loops.advanceTime(by: .nanoseconds(1))
            #expect(fired.withLock { $0 })
            try onLoop(loop) { loop.deregister(id) }
        }
    }
}
