// EventLoop: tasks, timers, registrations, shutdown.

import Glibc
import Testing

@testable import FWLoop

// MARK: - Tasks

@Suite struct EventLoopTaskTests {
    @Test func tasksRunInFIFOOrderOnTheLoopThread() throws {
        try withLoop { loop in
            let order = LockedBox<[Int]>([])
            let onLoopThread = LockedBox(true)
            for index in 0..<200 {
                loop.execute {
                    let inLoop = loop.inEventLoop
                    onLoopThread.withLock { $0 = $0 && inLoop }
                    order.withLock { $0.append(index) }
                }
            }
            #expect(waitUntil { order.withLock { $0.count == 200 } })
            #expect(order.withLock { $0 } == Array(0..<200))
            #expect(onLoopThread.withLock { $0 })
            #expect(!loop.inEventLoop)
        }
    }

    @Test func executeFromAnotherThreadWakesAnIdleLoop() throws {
        try withLoop { loop in
            // Let the loop settle into an infinite epoll_wait first.
            sleep(for: .milliseconds(50))
            let ran = LockedBox(false)
            let start = Deadline.now()
            let thread = try PosixThread.spawn(name: "fw-test-poster", detached: false) {
                loop.execute { ran.withLock { $0 = true } }
            }
            PosixThread.join(thread)
            #expect(waitUntil(timeout: .seconds(2)) { ran.withLock { $0 } })
            #expect(Deadline.now() - start < .seconds(1))
        }
    }

    @Test func tasksQueuedByATaskRunAfterTheCurrentBatch() throws {
        try withLoop { loop in
            let order = LockedBox<[String]>([])
            let gate = LockedBox(false)
            // Hold the loop in a task so that A and B land in the same batch.
            loop.execute {
                _ = waitUntil { gate.withLock { $0 } }
            }
            loop.execute {
                order.withLock { $0.append("A") }
                loop.execute { order.withLock { $0.append("C") } }
            }
            loop.execute { order.withLock { $0.append("B") } }
            gate.withLock { $0 = true }
            #expect(waitUntil { order.withLock { $0.count == 3 } })
            #expect(order.withLock { $0 } == ["A", "B", "C"])
        }
    }

    @Test func manyThreadsPostingLoseNoTask() throws {
        try withLoop { loop in
            let count = LockedBox(0)
            var threads: [pthread_t] = []
            for index in 0..<4 {
                threads.append(try PosixThread.spawn(name: "fw-test-post\(index)", detached: false) {
                    for _ in 0..<500 {
                        loop.execute { count.withLock { $0 += 1 } }
                    }
                })
            }
            threads.forEach(PosixThread.join)
            #expect(waitUntil { count.withLock { $0 == 2000 } })
        }
    }
}

// MARK: - Shutdown

@Suite struct EventLoopShutdownTests {
    @Test func shutdownRunsAcceptedTasksThenDropsNewOnes() throws {
        let loop = try EventLoop(name: "fw-test-stop")
        let ran = LockedBox<[String]>([])
        loop.execute {
            sleep(for: .milliseconds(30))
            ran.withLock { $0.append("before") }
        }
        loop.shutdown()
        #expect(ran.withLock { $0 } == ["before"])
        loop.execute { ran.withLock { $0.append("after") } }
        loop.shutdown()
        sleep(for: .milliseconds(20))
        #expect(ran.withLock { $0 } == ["before"])
    }

    @Test func shutdownStopsTimersAndReleasesHandlers() throws {
        let loop = try EventLoop(name: "fw-test-stop")
        let (left, right) = try makeSocketPair()
        defer {
            close(left)
            close(right)
        }
        let fired = LockedBox(false)
        let handlerGone = LockedBox(false)
        try onLoop(loop) {
            loop.scheduleTimer(at: .now() + .milliseconds(50)) { fired.withLock { $0 = true } }
            final class Watcher: IOHandler {
                let gone: LockedBox<Bool>
                init(_ gone: LockedBox<Bool>) { self.gone = gone }
                deinit { gone.withLock { $0 = true } }
                func handleIO(_ events: IOEvents) {}
            }
            _ = try loop.register(fd: left, interest: [], handler: Watcher(handlerGone))
        }
        loop.shutdown()
        #expect(handlerGone.withLock { $0 })
        sleep(for: .milliseconds(80))
        #expect(!fired.withLock { $0 })
    }
}

// MARK: - Timers

@Suite struct EventLoopTimerTests {
    @Test func timersFireInDeadlineOrderAndNeverEarly() throws {
        try withLoop { loop in
            let fired = LockedBox<[(Int, Bool)]>([])
            try onLoop(loop) {
                let start = Deadline.now()
                for offset in [30, 10, 20, 1, 15] {
                    let deadline = start + .milliseconds(offset)
                    loop.scheduleTimer(at: deadline) {
                        let onTime = Deadline.now() >= deadline
                        fired.withLock { $0.append((offset, onTime)) }
                    }
                }
            }
            #expect(waitUntil { fired.withLock { $0.count == 5 } })
            #expect(fired.withLock { $0.map(\.0) } == [1, 10, 15, 20, 30])
            #expect(fired.withLock { $0.allSatisfy(\.1) })
        }
    }

    @Test func equalDeadlinesFireInScheduleOrder() throws {
        try withLoop { loop in
            let fired = LockedBox<[Int]>([])
            try onLoop(loop) {
                let deadline = Deadline.now() + .milliseconds(5)
                for index in 0..<10 {
                    loop.scheduleTimer(at: deadline) { fired.withLock { $0.append(index) } }
                }
            }
            #expect(waitUntil { fired.withLock { $0.count == 10 } })
            #expect(fired.withLock { $0 } == Array(0..<10))
        }
    }

    @Test func cancelledTimersDoNotFire() throws {
        try withLoop { loop in
            let fired = LockedBox<[String]>([])
            try onLoop(loop) {
                let now = Deadline.now()
                let cancelled = loop.scheduleTimer(at: now + .milliseconds(10)) { fired.withLock { $0.append("x") } }
                // A timer cancelled by an earlier timer of the same batch must not run either.
                let victim = TimerIDBox()
                loop.scheduleTimer(at: now + .milliseconds(1)) {
                    fired.withLock { $0.append("first") }
                    if let id = victim.id {
                        loop.cancelTimer(id)
                    }
                }
                victim.id = loop.scheduleTimer(at: now + .milliseconds(2)) { fired.withLock { $0.append("y") } }
                loop.scheduleTimer(at: now + .milliseconds(20)) { fired.withLock { $0.append("last") } }
                loop.cancelTimer(cancelled)
                loop.cancelTimer(cancelled)
            }
            #expect(waitUntil { fired.withLock { $0.contains("last") } })
            sleep(for: .milliseconds(20))
            #expect(fired.withLock { $0 } == ["first", "last"])
        }
    }

    @Test func aTimerScheduledFromATimerRuns() throws {
        try withLoop { loop in
            let fired = LockedBox<[String]>([])
            try onLoop(loop) {
                loop.scheduleTimer(at: .now()) {
                    fired.withLock { $0.append("outer") }
                    loop.scheduleTimer(at: .now()) { fired.withLock { $0.append("inner") } }
                    loop.scheduleTimer(at: .now() + .milliseconds(5)) { fired.withLock { $0.append("later") } }
                }
            }
            #expect(waitUntil { fired.withLock { $0.count == 3 } })
            #expect(fired.withLock { $0 } == ["outer", "inner", "later"])
        }
    }
}

/// Lets a timer closure see an id assigned after it was created (loop thread only).
private final class TimerIDBox {
    var id: TimerID?
}

// MARK: - Registrations

@Suite struct EventLoopRegistrationTests {
    @Test func reportsReadableAndWritableForAConnectedPair() throws {
        try withLoop { loop in
            let (left, right) = try makeSocketPair()
            defer {
                close(left)
                close(right)
            }
            let handler = LockedBox<RecordingHandler?>(nil)
            let id = try onLoop(loop) {
                let recorder = RecordingHandler()
                handler.withLock { $0 = recorder }
                return try loop.register(fd: left, interest: .writable, handler: recorder)
            }
            let events = try #require(handler.withLock { $0 }).events
            #expect(waitUntil { events.withLock { !$0.isEmpty } })
            #expect(events.withLock { $0.allSatisfy { $0 == .writable } })

            // The task runs before this iteration's dispatch, which already filters by the new interest.
            try onLoop(loop) { try loop.setInterest(.readable, for: id) }
            let seen = events.withLock { $0.count }
            sleep(for: .milliseconds(20))
            #expect(events.withLock { $0.count } == seen)
            events.withLock { $0 = [] }
            try writeAll(right, "ping")
            #expect(waitUntil { events.withLock { $0.contains(.readable) } })
            #expect(events.withLock { $0.allSatisfy { $0 == .readable } })
            try onLoop(loop) { loop.deregister(id) }
        }
    }

    @Test func reportsHangupWhenThePeerCloses() throws {
        try withLoop { loop in
            let (left, right) = try makeSocketPair()
            defer {
                close(left)
            }
            let recorder = LockedBox<[IOEvents]>([])
            let id = try onLoop(loop) {
                let handler = RecordingHandler { events in recorder.withLock { $0.append(events) } }
                return try loop.register(fd: left, interest: .readable, handler: handler)
            }
            close(right)
            #expect(waitUntil { recorder.withLock { $0.contains { $0.contains([.readable, .hangup]) } } })
            try onLoop(loop) { loop.deregister(id) }
        }
    }

    @Test func deregisteredAndReusedDescriptorGetsNoStaleEvent() throws {
        try withLoop { loop in
            // Two descriptors readable before registration are harvested in one batch. Whichever
            // handler runs first deregisters both, then makes the other's number name a fresh,
            // idle socket (dup2 = close + reopen with the same number) and registers a newcomer
            // there. The other's harvested event must reach neither its old handler nor the
            // newcomer.
            let first = try makeSocketPair()
            let second = try makeSocketPair()
            let fresh = try makeSocketPair()
            defer {
                [first.0, first.1, second.0, second.1, fresh.0, fresh.1].forEach { close($0) }
            }
            try writeAll(first.1, "x")
            try writeAll(second.1, "y")
            let log = LockedBox<[String]>([])
            try onLoop(loop) {
                final class Registrations {
                    var ids: [RegistrationID] = []
                }
                let registrations = Registrations()
                let fds = [first.0, second.0]
                for index in 0..<2 {
                    let handler = RecordingHandler { _ in
                        log.withLock { $0.append("handler \(index)") }
                        registrations.ids.forEach(loop.deregister)
                        let victim = fds[1 - index]
                        guard dup2(fresh.0, victim) == victim else {
                            log.withLock { $0.append("dup2 failed") }
                            return
                        }
                        let newcomer = RecordingHandler { _ in log.withLock { $0.append("newcomer") } }
                        do {
                            _ = try loop.register(fd: victim, interest: .readable, handler: newcomer)
                        } catch {
                            log.withLock { $0.append("register failed: \(error)") }
                        }
                    }
                    registrations.ids.append(try loop.register(fd: fds[index], interest: .readable, handler: handler))
                }
            }
            #expect(waitUntil { log.withLock { !$0.isEmpty } })
            sleep(for: .milliseconds(50))
            let entries = log.withLock { $0 }
            #expect(entries == ["handler 0"] || entries == ["handler 1"])
        }
    }
}
