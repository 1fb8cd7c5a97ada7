// EventLoop: wake-ups from other threads (the eventfd is written only while the loop may be asleep, after the
// lock) and the input an iteration harvested (`reportedInput(for:)`).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

@testable import FWLoop

// MARK: - Wake-ups

/// A POSIX semaphore a test thread waits on (bounded) and a loop task posts.
private final class Semaphore: @unchecked Sendable { // `sem_t` is thread-safe; `pointer` is immutable
    private let pointer = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() {
        sem_init(pointer, 0, 0)
    }

    deinit {
        sem_destroy(pointer)
        pointer.deallocate()
    }

    func post() {
        sem_post(pointer)
    }

    /// Waits until posted or `seconds` passed (CLOCK_REALTIME, as `sem_timedwait` measures); false on timeout.
    func wait(seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        while true {
            if sem_timedwait(pointer, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}

@Suite struct EventLoopWakeupTests {
    // Each thread posts a task and waits for it to run before it posts the next, so the loop keeps falling
    // asleep (no timer: epoll_wait without timeout) and being woken while other threads post: a task whose
    // wake-up was lost would never run, and its thread would give up after 10 s. Jittered pauses move the
    // posts across the loop's decision to block.
    @Test func postersRacingTheLoopFallingAsleepLoseNoWakeup() throws {
        try withLoop { loop in
            let threadCount = 6
            let roundTrips = 1500
            let ran = LockedBox(0)
            let stalled = LockedBox(0)
            var threads: [pthread_t] = []
            for index in 0..<threadCount {
                threads.append(try PosixThread.spawn(name: "fw-test-wake\(index)", detached: false) {
                    let done = Semaphore()
                    var random = SplitMix64(seed: UInt64(index + 1))
                    for _ in 0..<roundTrips {
                        loop.execute {
                            ran.withLock { $0 += 1 }
                            done.post()
                        }
                        guard done.wait(seconds: 10) else {
                            stalled.withLock { $0 += 1 }
                            return
                        }
                        let pause = random.next() % 64
                        if pause < 48 { usleep(UInt32(pause)) }
                    }
                })
            }
            threads.forEach(PosixThread.join)
            #expect(stalled.withLock { $0 } == 0)
            #expect(ran.withLock { $0 } == threadCount * roundTrips)
        }
    }

    // Bursts from many threads with no waiting: every task runs, FIFO per thread.
    @Test func burstsFromManyThreadsRunEveryTaskInEachThreadsOrder() throws {
        try withLoop { loop in
            let threadCount = 8
            let perThread = 2000
            let seen = LockedBox([Int](repeating: 0, count: threadCount))
            let disordered = LockedBox(0)
            var threads: [pthread_t] = []
            for index in 0..<threadCount {
                threads.append(try PosixThread.spawn(name: "fw-test-burst\(index)", detached: false) {
                    for number in 0..<perThread {
                        loop.execute {
                            seen.withLock { seen in
                                if seen[index] != number { disordered.withLock { $0 += 1 } }
                                seen[index] = number + 1
                            }
                        }
                        if number % 256 == 255 { usleep(50) }
                    }
                })
            }
            threads.forEach(PosixThread.join)
            #expect(waitUntil(timeout: .seconds(30)) { seen.withLock { $0.allSatisfy { $0 == perThread } } })
            #expect(disordered.withLock { $0 } == 0)
        }
    }

    // The eventfd closes in `deinit` (a signal may follow `shutdown`): a loop shut down and let go is released.
    @Test func aLoopShutDownAndLetGoIsReleased() throws {
        var loop: EventLoop? = try EventLoop(name: "fw-test-release")
        weak let probe = loop
        try onLoop(try #require(loop)) {}
        loop?.shutdown()
        loop = nil
        #expect(probe == nil)
    }

    // Posts racing `shutdown`: a signal decided before the shutdown may be written after it (the eventfd
    // lives as long as the loop); nothing runs once `shutdown` returned.
    @Test func postsRacingShutdownRunNothingAfterIt() throws {
        for round in 0..<50 {
            let loop = try EventLoop(name: "fw-test-race\(round)")
            let ran = LockedBox(0)
            let poster = try PosixThread.spawn(name: "fw-test-racer", detached: false) {
                for _ in 0..<200 {
                    loop.execute { ran.withLock { $0 += 1 } }
                }
            }
            usleep(UInt32(round * 20))
            loop.shutdown()
            let atShutdown = ran.withLock { $0 }
            PosixThread.join(poster)
            #expect(ran.withLock { $0 } == atShutdown)
            #expect(atShutdown <= 200)
        }
    }
}

// MARK: - Input harvested this iteration

@Suite struct EventLoopReportedInputTests {
    // Bytes that arrive while the loop is busy in a task are harvested by the next epoll_wait: that
    // iteration's tasks, which run before its dispatch, learn of them; once the handler read them, later
    // iterations report nothing.
    @Test func tasksSeeInputTheirIterationHarvestedBeforeTheHandlerDoes() throws {
        try withLoop { loop in
            let (left, right) = try makeSocketPair()
            defer {
                close(left)
                close(right)
            }
            let recorder = LockedBox<RecordingHandler?>(nil)
            let id = try onLoop(loop) {
                let handler = RecordingHandler { _ in
                    var buffer = [UInt8](repeating: 0, count: 64)
                    _ = buffer.withUnsafeMutableBytes { Glibc.read(left, $0.baseAddress, $0.count) }
                }
                recorder.withLock { $0 = handler }
                return try loop.register(fd: left, interest: .readable, handler: handler)
            }
            let events = try #require(recorder.withLock { $0 }).events
            #expect(try onLoop(loop) { loop.reportedInput(for: id) } == false)

            let started = LockedBox(false)
            let gate = LockedBox(false)
            loop.execute {
                started.withLock { $0 = true }
                _ = waitUntil { gate.withLock { $0 } }
            }
            #expect(waitUntil { started.withLock { $0 } })
            try writeAll(right, "x")
            let answer = LockedBox<(reported: Bool, handled: Int)?>(nil)
            loop.execute {
                let reported = loop.reportedInput(for: id)
                answer.withLock { $0 = (reported, events.withLock { $0.count }) }
            }
            gate.withLock { $0 = true }
            #expect(waitUntil { answer.withLock { $0 != nil } })
            #expect(answer.withLock { $0?.reported } == true)
            #expect(answer.withLock { $0?.handled } == 0)

            #expect(waitUntil { events.withLock { $0.count } == 1 })
            try waitForFullIteration(loop)
            #expect(try onLoop(loop) { loop.reportedInput(for: id) } == false)
            try onLoop(loop) { loop.deregister(id) }
        }
    }
}
