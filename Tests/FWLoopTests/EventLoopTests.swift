// EventLoop: tasks, timers, registrations, shutdown.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

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
            // Wait until the loop sleeps in its epoll_wait, which has no timeout (no timer): only the
            // wake-up of `execute` can get the task run.
            let thread = try onLoop(loop) { currentThreadID() }
            #expect(thread != nil)
            #expect(waitUntil { threadState(thread) == "S" })
            let ran = LockedBox(false)
            let poster = try PosixThread.spawn(name: "fw-test-poster", detached: false) {
                loop.execute { ran.withLock { $0 = true } }
            }
            PosixThread.join(poster)
            #expect(waitUntil { ran.withLock { $0 } })
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
        // Hold the loop until the shutdown has begun, so that "before" is still queued when it does.
        loop.execute {
            _ = waitUntil { refusesTasks(loop) }
        }
        #expect(loop.execute { ran.withLock { $0.append("before") } })
        loop.shutdown()
        #expect(ran.withLock { $0 } == ["before"])
        // Dropped, and the caller is told (URLSessionExecutor then runs its job elsewhere).
        #expect(!loop.execute { ran.withLock { $0.append("after") } })
        loop.shutdown()
        // The loop thread was joined: nothing can run any more.
        #expect(ran.withLock { $0 } == ["before"])
    }

    @Test func shutdownDropsTimersAndReleasesHandlers() throws {
        // A manual clock: the timer cannot come due before the shutdown, however slow the machine.
        let loops = try ManualEventLoopGroup(namePrefix: "fw-test-stop")
        let loop = loops.loop
        let (left, right) = try makeSocketPair()
        defer {
            close(left)
            close(right)
        }
        let fired = LockedBox(false)
        let timerGone = LockedBox(false)
        let handlerGone = LockedBox(false)
        try onLoop(loop) {
            let token = Watcher(timerGone)
            loop.scheduleTimer(at: loop.now() + .milliseconds(50)) {
                _ = token
                fired.withLock { $0 = true }
            }
            _ = try loop.register(fd: left, interest: [], handler: Watcher(handlerGone))
        }
        loops.shutdown()
        #expect(handlerGone.withLock { $0 })
        #expect(timerGone.withLock { $0 })
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
        let loops = try ManualEventLoopGroup(namePrefix: "fw-test")
        defer {
            loops.shutdown()
        }
        let loop = loops.loop
        let fired = LockedBox<[String]>([])
        try onLoop(loop) {
            let now = loop.now()
            let cancelled = loop.scheduleTimer(at: now + .milliseconds(10)) { fired.withLock { $0.append("x") } }
            // Timers cancelled by an earlier timer must not run either: one due in the same batch (already
            // popped when it is cancelled) and one due later.
            let victims = TimerIDBox()
            loop.scheduleTimer(at: now + .milliseconds(1)) {
                fired.withLock { $0.append("first") }
                victims.ids.forEach(loop.cancelTimer)
            }
            victims.ids.append(loop.scheduleTimer(at: now + .milliseconds(1)) { fired.withLock { $0.append("y") } })
            victims.ids.append(loop.scheduleTimer(at: now + .milliseconds(2)) { fired.withLock { $0.append("z") } })
            loop.scheduleTimer(at: now + .milliseconds(20)) { fired.withLock { $0.append("last") } }
            loop.cancelTimer(cancelled)
            loop.cancelTimer(cancelled)
        }
        try loops.advanceTime(by: .milliseconds(20))
        #expect(fired.withLock { $0 } == ["first", "last"])
        #expect(try loops.nextTimerDeadline() == nil)
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

/// Lets a timer closure see ids assigned after it was created (loop thread only).
private final class TimerIDBox {
    var ids: [TimerID] = []
}

/// An IO handler (or any captured object) that reports when it is released.
private final class Watcher: IOHandler {
    let gone: LockedBox<Bool>

    init(_ gone: LockedBox<Bool>) {
        self.gone = gone
    }

    deinit {
        gone.withLock { $0 = true }
    }

    func handleIO(_ events: IOEvents) {}
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

            // The task runs before this iteration's dispatch, which already filters by the new interest; in
            // the iterations after it the descriptor is still writable, but that is no longer asked for.
            try onLoop(loop) { try loop.setInterest(.readable, for: id) }
            let seen = events.withLock { $0.count }
            try waitForFullIteration(loop)
            #expect(events.withLock { $0.count } == seen)
            events.withLock { $0 = [] }
            try writeAll(right, "ping")
            #expect(waitUntil { events.withLock { $0.contains(.readable) } })
            #expect(events.withLock { $0.allSatisfy { $0 == .readable } })
            try onLoop(loop) { loop.deregister(id) }
        }
    }

    /// `transfer` moves a registration to another handler and interest under a new id: the old handler hears
    /// nothing more, the new one only what it asked for, and the old id is gone (transferring it again throws
    /// `ENOENT`).
    @Test func transferHandsARegistrationToAnotherHandler() throws {
        try withLoop { loop in
            let (left, right) = try makeSocketPair()
            defer {
                close(left)
                close(right)
            }
            let handlers = LockedBox<(first: RecordingHandler, second: RecordingHandler)?>(nil)
            let old = try onLoop(loop) {
                let pair = (first: RecordingHandler(), second: RecordingHandler())
                handlers.withLock { $0 = pair }
                return try loop.register(fd: left, interest: .writable, handler: pair.first)
            }
            let (first, second) = try #require(handlers.withLock { $0 })
            #expect(waitUntil { first.calls > 0 })
            let new = try onLoop(loop) {
                // Read on the loop thread: the handlers are not Sendable.
                try loop.transfer(old, to: handlers.withLock { $0! }.second, interest: .readable)
            }
            #expect(new != old)
            let heard = first.calls
            try waitForFullIteration(loop)
            // Still writable, but the new handler asked only for readable.
            #expect(first.calls == heard && second.calls == 0)
            try writeAll(right, "ping")
            #expect(waitUntil { second.events.withLock { $0.contains(.readable) } })
            #expect(second.events.withLock { $0.allSatisfy { $0 == .readable } })
            #expect(first.calls == heard)
            let again = try onLoop(loop) { () -> Int32? in
                do throws(IOError) {
                    _ = try loop.transfer(old, to: RecordingHandler(), interest: .readable)
                    return nil
                } catch {
                    return error.errno
                }
            }
            #expect(again == ENOENT)
            try onLoop(loop) { loop.deregister(new) }
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

    /// `deregister(_:closingDescriptor:)` forgets the registration without an `EPOLL_CTL_DEL`: the kernel's
    /// entry (listed in the epoll descriptor's `/proc/self/fdinfo`) stays until the descriptor closes, then goes.
    @Test func deregisterBeforeCloseLeavesTheEntryToTheKernel() throws {
        try withLoop { loop in
            let (left, right) = try makeSocketPair()
            defer { close(right) }
            func entries() -> Int {
                let fd = open("/proc/self/fdinfo/\(loop.epollFD)", O_RDONLY)
                guard fd >= 0 else { return -1 }
                defer { close(fd) }
                var info: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while case let count = read(fd, &chunk, chunk.count), count > 0 { info += chunk[..<count] }
                return String(decoding: info, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("tfd:") }.count
            }
            let id = try onLoop(loop) {
                try loop.register(fd: left, interest: .readable, handler: RecordingHandler())
            }
            let registered = entries()
            #expect(registered > 0)
            try onLoop(loop) { loop.deregister(id, closingDescriptor: true) }
            #expect(entries() == registered)
            close(left)
            #expect(entries() == registered - 1)
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
                        registrations.ids.forEach { loop.deregister($0) }
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
            // The stale event was harvested in the same batch: it would be dispatched in this iteration.
            try waitForFullIteration(loop)
            let entries = log.withLock { $0 }
            #expect(entries == ["handler 0"] || entries == ["handler 1"])
        }
    }
}
