// BusyPollWindow (BusyPollWindow.swift): the adaptive window a hosted slice polls in before it blocks, as a
// value (no loop, no clock); and a hosted loop that polls while a channel awaits its peer's answer: input
// that comes within the window is handled by a polling slice, tasks and yields from other threads still get
// through, and neither a window of zero nor a loop that awaits no answer polls.

import CFWShims
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

@testable import FWLoop

@Suite struct BusyPollWindowTests {
    private let microsecond: UInt64 = 1_000

    @Test func theWindowStartsOpenAtItsLimit() {
        let window = BusyPollWindow(limit: .microseconds(100), cpus: 2)
        #expect(window.limit == 100 * microsecond)
        #expect(window.current == 100 * microsecond)
        #expect(window.polls(quiet: 0))
        #expect(window.polls(quiet: 99 * microsecond))
        #expect(!window.polls(quiet: 100 * microsecond))
    }

    @Test func oneCPUOrNoLimitNeverPolls() {
        for window in [BusyPollWindow(limit: .microseconds(100), cpus: 1),
                       BusyPollWindow(limit: .zero, cpus: 8),
                       BusyPollWindow(limit: .microseconds(-5), cpus: 8)] {
            var window = window
            #expect(window.limit == 0)
            #expect(!window.polls(quiet: 0))
            window.noteWork(afterQuiet: 0)
            #expect(!window.polls(quiet: 0))
        }
    }

    @Test func slowWorkHalvesTheWindowUntilItCloses() {
        var window = BusyPollWindow(limit: .microseconds(100), cpus: 2)
        var widths: [UInt64] = []
        for _ in 0..<6 {
            window.noteWork(afterQuiet: 5_000 * microsecond) // a distant server: 5 ms
            widths.append(window.current / microsecond)
        }
        // 100 → 50 → 25 → 12 → 6 → closed (a half under the 5 µs floor), and it stays closed.
        #expect(widths == [50, 25, 12, 6, 0, 0])
        #expect(!window.polls(quiet: 0))
    }

    @Test func fastWorkOpensAClosedWindowAgain() {
        var window = BusyPollWindow(limit: .microseconds(100), cpus: 2)
        for _ in 0..<8 { window.noteWork(afterQuiet: 1_000 * microsecond) }
        #expect(window.current == 0)
        window.noteWork(afterQuiet: 40 * microsecond) // slept through, but it came fast
        #expect(window.current == 100 * microsecond)
        #expect(window.polls(quiet: 10 * microsecond))
    }
}

/// Creates a hosted loop with a busy-poll window for one test and shuts it down afterwards.
private func withPollingLoop<T>(linger: Duration, busyPoll: Duration,
                                _ body: (EventLoop, QueueHost) throws -> T) throws -> T {
    let host = QueueHost()
    let loop = try EventLoop(name: "fw-test-polling", hostedBy: host, linger: linger, busyPoll: busyPoll)
    defer { loop.shutdown() }
    return try body(loop, host)
}

@Suite struct BusyPollingLoopTests {
    /// Registers a handler for `fd`'s input that reads what came and records it.
    private func watchInput(of fd: Int32, on loop: EventLoop, into received: LockedBox<[UInt8]>) throws {
        _ = try onLoop(loop) {
            let handler = RecordingHandler { _ in
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = read(fd, &buffer, buffer.count)
                if count > 0 { received.withLock { $0 += buffer[..<count] } }
            }
            return try loop.register(fd: fd, interest: .readable, handler: handler)
        }
    }

    @Test(.enabled(if: fw_available_cpus() > 1))
    func inputThatComesWithinTheWindowIsHandledByAPollingSlice() throws {
        let (left, right) = try makeSocketPair()
        defer { close(right) }
        try withPollingLoop(linger: .seconds(30), busyPoll: .seconds(5)) { loop, _ in
            let received = LockedBox<[UInt8]>([])
            try watchInput(of: left, on: loop, into: received)
            // A request went out: the slice now polls for up to 5 s rather than blocking.
            try onLoop(loop) { loop.expectAnswer(true) }
            try writeAll(right, "ping")
            #expect(waitUntil(timeout: .seconds(10)) { received.withLock { $0.count == 4 } })
            let polls = try onLoop(loop) { loop.busyPolls }
            #expect(polls > 0)
            try onLoop(loop) {
                loop.expectAnswer(false)
                close(left)
            }
        }
    }

    @Test(.enabled(if: fw_available_cpus() > 1))
    func tasksAndYieldsFromOtherThreadsGetThroughWhileTheSlicePolls() throws {
        try withPollingLoop(linger: .seconds(30), busyPoll: .seconds(5)) { loop, host in
            try onLoop(loop) { loop.expectAnswer(true) }
            // Polling, the slice marked no wake-up as needed: a task must still run, without the eventfd.
            let ran = LockedBox(false)
            loop.execute { ran.withLock { $0 = true } }
            #expect(waitUntil(timeout: .seconds(10)) { ran.withLock { $0 } })
            let ranOther = LockedBox(false)
            host.enqueue { ranOther.withLock { $0 = true } }
            loop.requestYield()
            #expect(waitUntil(timeout: .seconds(10)) { ranOther.withLock { $0 } })
            #expect(try onLoop(loop) { loop.busyPolls } > 0)
            try onLoop(loop) { loop.expectAnswer(false) }
        }
    }

    @Test func aLoopThatAwaitsNoAnswerDoesNotPoll() throws {
        let (left, right) = try makeSocketPair()
        defer { close(right) }
        try withPollingLoop(linger: .seconds(30), busyPoll: .seconds(5)) { loop, _ in
            let received = LockedBox<[UInt8]>([])
            try watchInput(of: left, on: loop, into: received)
            // A body on its way, say: bytes come, but no channel waits for an answer.
            try writeAll(right, "ping")
            #expect(waitUntil(timeout: .seconds(10)) { received.withLock { $0.count == 4 } })
            #expect(try onLoop(loop) { loop.busyPolls } == 0)
            try onLoop(loop) { close(left) }
        }
    }

    @Test func aWindowOfZeroNeverPolls() throws {
        let (left, right) = try makeSocketPair()
        defer { close(right) }
        try withPollingLoop(linger: .seconds(30), busyPoll: .zero) { loop, _ in
            let received = LockedBox<[UInt8]>([])
            try watchInput(of: left, on: loop, into: received)
            try onLoop(loop) { loop.expectAnswer(true) }
            try writeAll(right, "ping")
            #expect(waitUntil(timeout: .seconds(10)) { received.withLock { $0.count == 4 } })
            #expect(try onLoop(loop) { loop.busyPolls } == 0)
            try onLoop(loop) {
                loop.expectAnswer(false)
                close(left)
            }
        }
    }
}
