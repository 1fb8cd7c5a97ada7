// EventLoop's hosted mode (EventLoop+Hosted.swift, LoopDoorbell.swift): slices on a host's serial queue,
// parking, the doorbell for I/O and timers, yielding, I/O before timers, shutdown and release.

import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization
import Testing
import TestSupport

@testable import FWLoop

/// Runs a hosted loop's slices on a serial dispatch queue and counts what it was asked and ran.
final class QueueHost: EventLoopHost {
    /// Set on the host's queue only.
    static let marker = DispatchSpecificKey<Bool>()
    let queue = DispatchQueue(label: "fw-test-host")
    let requests = Atomic<Int>(0)
    let slices = Atomic<Int>(0)

    init() {
        queue.setSpecific(key: Self.marker, value: true)
    }

    func scheduleSlice(of loop: EventLoop) {
        requests.add(1, ordering: .relaxed)
        queue.async { [self] in
            slices.add(1, ordering: .relaxed)
            loop.runSlice()
        }
    }

    /// Adds `work` to the host's queue, behind the slices already asked for.
    func enqueue(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}

/// Creates a hosted loop for one test and shuts it down afterwards.
private func withHostedLoop<T>(linger: Duration = .milliseconds(1),
                               _ body: (EventLoop, QueueHost) throws -> T) throws -> T {
    let host = QueueHost()
    let loop = try EventLoop(name: "fw-test-hosted", hostedBy: host, linger: linger)
    defer { loop.shutdown() }
    return try body(loop, host)
}

@Suite struct HostedEventLoopTests {
    @Test func aTaskFromAnotherThreadRunsInASliceOnTheHostsQueue() throws {
        try withHostedLoop { loop, host in
            #expect(loop.isParked)
            #expect(host.requests.load(ordering: .relaxed) == 0)
            let seen = LockedBox<(inLoop: Bool, onHostQueue: Bool)?>(nil)
            loop.execute {
                let onHostQueue = DispatchQueue.getSpecific(key: QueueHost.marker) == true
                seen.withLock { $0 = (loop.inEventLoop, onHostQueue) }
            }
            #expect(waitUntil { seen.withLock { $0 != nil } })
            #expect(seen.withLock { $0?.inLoop } == true)
            #expect(seen.withLock { $0?.onHostQueue } == true)
            // Nothing else to do: the slice parks after its linger, and the loop is not "ours" outside it.
            #expect(waitUntil { loop.isParked })
            #expect(!loop.inEventLoop)
            #expect(host.requests.load(ordering: .relaxed) == 1)
        }
    }

    @Test func aTimerFiresWhileTheLoopIsParked() throws {
        try withHostedLoop { loop, host in
            let fired = LockedBox(false)
            try onLoop(loop) {
                loop.scheduleTimer(at: loop.now() + .milliseconds(60)) { fired.withLock { $0 = true } }
            }
            // The slice parks long before the timer is due; the timerfd and the doorbell bring a new slice.
            #expect(waitUntil { loop.isParked })
            #expect(!fired.withLock { $0 })
            let slicesWhileParked = host.slices.load(ordering: .relaxed)
            #expect(waitUntil { fired.withLock { $0 } })
            #expect(host.slices.load(ordering: .relaxed) > slicesWhileParked)
        }
    }

    @Test func inputWakesAParkedLoop() throws {
        let (left, right) = try makeSocketPair()
        defer { close(right) }
        try withHostedLoop { loop, _ in
            let recorder = LockedBox<[IOEvents]>([])
            let id = try onLoop(loop) {
                let handler = RecordingHandler { events in recorder.withLock { $0.append(events) } }
                return try loop.register(fd: left, interest: .readable, handler: handler)
            }
            #expect(waitUntil { loop.isParked })
            try writeAll(right, "x")
            #expect(waitUntil { !recorder.withLock { $0.isEmpty } })
            #expect(recorder.withLock { $0.first?.contains(.readable) } == true)
            try onLoop(loop) {
                loop.deregister(id)
                close(left)
            }
        }
    }

    @Test func aYieldLetsTheHostsOtherWorkRunBeforeTheNextIteration() throws {
        try withHostedLoop(linger: .seconds(2)) { loop, host in
            let order = LockedBox<[String]>([])
            loop.execute {
                order.withLock { $0.append("A") }
                host.enqueue { order.withLock { $0.append("other work") } }
                loop.requestYield()
                loop.execute { order.withLock { $0.append("B") } }
            }
            #expect(waitUntil { order.withLock { $0.count == 3 } })
            // Without the yield, the lingering slice would run B in its next iteration, before the other work.
            #expect(order.withLock { $0 } == ["A", "other work", "B"])
        }
    }

    @Test func aYieldWakesASliceBlockedInItsLinger() throws {
        try withHostedLoop(linger: .seconds(30)) { loop, host in
            try onLoop(loop) {}
            let ranOther = LockedBox(false)
            // The slice now waits in epoll_wait for up to 30 s; the yield's eventfd signal ends that wait.
            host.enqueue { ranOther.withLock { $0 = true } }
            loop.requestYield()
            #expect(waitUntil(timeout: .seconds(10)) { ranOther.withLock { $0 } })
        }
    }

    @Test func inputIsReadBeforeTimersWhenTheSliceWasHeldUp() throws {
        let (left, right) = try makeSocketPair()
        defer { close(right) }
        try withHostedLoop { loop, _ in
            let order = LockedBox<[String]>([])
            let id = try onLoop(loop) {
                let handler = RecordingHandler { _ in order.withLock { $0.append("input") } }
                return try loop.register(fd: left, interest: .readable, handler: handler)
            }
            loop.execute {
                loop.scheduleTimer(at: loop.now() + .milliseconds(20)) { order.withLock { $0.append("timer") } }
                // The host's queue is busy past the timer's deadline while the input waits in the socket.
                try? writeAll(right, "response")
                usleep(80_000)
            }
            #expect(waitUntil { order.withLock { $0.count >= 2 } })
            #expect(order.withLock { Array($0.prefix(2)) } == ["input", "timer"])
            try onLoop(loop) {
                loop.deregister(id)
                close(left)
            }
        }
    }

    @Test func shutdownOfAParkedLoopRunsTheAcceptedTasksAndDropsTheRest() throws {
        let host = QueueHost()
        let loop = try EventLoop(name: "fw-test-hosted", hostedBy: host)
        let (left, right) = try makeSocketPair()
        defer { close(right) }
        final class Probe: IOHandler {
            let gone: LockedBox<Bool>
            init(_ gone: LockedBox<Bool>) { self.gone = gone }
            deinit { gone.withLock { $0 = true } }
            func handleIO(_ events: IOEvents) {}
        }
        let handlerGone = LockedBox(false)
        try onLoop(loop) {
            _ = try loop.register(fd: left, interest: .readable, handler: Probe(handlerGone))
        }
        #expect(waitUntil { loop.isParked })
        let ran = LockedBox<[String]>([])
        #expect(loop.execute { ran.withLock { $0.append("accepted") } })
        loop.shutdown()
        #expect(!loop.execute { ran.withLock { $0.append("after shutdown") } })
        #expect(waitUntil { loop.incoming.withLock { $0.slice == .stopped } })
        #expect(ran.withLock { $0 } == ["accepted"])
        #expect(handlerGone.withLock { $0 }) // the registration went with the last slice
        close(left)
    }

    @Test func shutdownFromInsideASliceStopsTheLoopAfterThatIteration() throws {
        let host = QueueHost()
        let loop = try EventLoop(name: "fw-test-hosted", hostedBy: host)
        let ran = LockedBox<[String]>([])
        loop.execute {
            loop.shutdown()
            loop.execute { ran.withLock { $0.append("after shutdown") } }
            ran.withLock { $0.append("shut down") }
        }
        #expect(waitUntil { loop.incoming.withLock { $0.slice == .stopped } })
        #expect(ran.withLock { $0 } == ["shut down"])
    }

    @Test func aReleasedHostedLoopIsFreedAndTheDoorbellForgetsIt() throws {
        let host = QueueHost()
        weak var released: EventLoop?
        do {
            let loop = try EventLoop(name: "fw-test-hosted", hostedBy: host)
            released = loop
            try onLoop(loop) {}
            #expect(waitUntil { loop.isParked }) // the doorbell was armed for it
        }
        // The host's queue may still hold the finished slice's closure for a moment.
        #expect(waitUntil { released == nil })
    }
}
