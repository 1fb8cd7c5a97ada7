// ChannelCore and ChannelDriver's read loop on a real loopback socket, with a driver that records what it
// hears: what the peer's end means under each hang-up rule (the socket unwatched, or still watched and written),
// a hang-up read at once while the driver holds reading back, and the hand-over of a core with its queued bytes
// to the next driver (on the same loop, or on another loop, where it then reads and writes), after which the
// core left behind closes nothing.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

@testable import FWLoop
@testable import FWTransport

@Suite struct ChannelCoreTests {
    /// A driver that keeps the plaintext it reads and notes what the core reports. Loop thread in; the test
    /// reads `seen`.
    final class RecordingDriver: ChannelDriver, @unchecked Sendable { // loop-thread-only state but `seen`
        struct Seen {
            var bytes: [UInt8] = []
            var peerEnds = 0
            var failures: [ChannelOperation] = []
            var watched = false
            var open = true
            /// Readiness reports that arrived on a thread other than the core's loop.
            var offLoopReports = 0
        }

        var core: ChannelCore
        var wantsBytes = true
        let seen = LockedBox(Seen())
        private var buffer = [UInt8](repeating: 0, count: ChannelCore.readSize)

        init(core: ChannelCore) {
            self.core = core
        }

        func handleIO(_ events: IOEvents) {
            if !core.loop.inEventLoop { seen.withLock { $0.offLoopReports += 1 } }
            handleChannelIO(events)
        }

        func receivePlaintext(upTo maxLength: Int,
                              using read: (UnsafeMutableRawBufferPointer) throws(IOError) -> Int) throws(IOError) {
            let count = try buffer.withUnsafeMutableBytes { room in Result { () throws(IOError) in try read(room) } }
                .get()
            seen.withLock { $0.bytes += buffer[..<count] }
        }

        func channelReceived() {}

        func channelReadingStopped() {
            note()
        }

        func channelPeerEnded() {
            seen.withLock { $0.peerEnds += 1 }
            note()
        }

        func channelFailed(_ error: IOError, in operation: ChannelOperation) {
            seen.withLock { $0.failures.append(operation) }
            core.close()
            note()
        }

        func flush() {
            guard writeQueued() else { return }
            refreshInterest()
            note()
        }

        /// Starts watching the socket.
        func start() {
            _ = startWatching()
            note()
        }

        private func note() {
            let (watched, open) = (core.isWatched, core.isOpen)
            seen.withLock { seen in
                seen.watched = watched
                seen.open = open
            }
        }
    }

    /// A driver over a loopback connection, on its own loop.
    struct Fixture {
        let group: EventLoopGroup
        let loop: EventLoop
        let driver: RecordingDriver
        let peer: Int32

        init(hangUp: HangUpRule) throws {
            group = try EventLoopGroup(loopCount: 1, namePrefix: "fw-core-test")
            loop = group.next()
            let connection = try LoopbackConnection()
            peer = connection.peer
            driver = RecordingDriver(core: ChannelCore(socket: connection.client, loop: loop, hangUp: hangUp))
        }

        /// Runs `body` on the driver's loop, waits for it and returns what it returned.
        @discardableResult
        func onLoop<Result: Sendable>(_ body: @escaping @Sendable (RecordingDriver) -> Result) -> Result? {
            let result = LockedBox<Result?>(nil)
            loop.execute { [driver] in
                let value = body(driver)
                result.withLock { $0 = value }
            }
            _ = waitUntil(timeout: 10) { result.withLock { $0 != nil } }
            return result.withLock { $0 }
        }

        /// Waits until the driver saw `condition`.
        func wait(_ condition: (RecordingDriver.Seen) -> Bool) -> RecordingDriver.Seen {
            _ = waitUntil(timeout: 10) { driver.seen.withLock { condition($0) } }
            return driver.seen.withLock { $0 }
        }

        func stop() {
            close(peer)
            onLoop { $0.core.close() }
            group.shutdown()
        }
    }

    /// The peer sends `text` and ends its side; returns once the driver heard the end.
    private static func peerSendsAndEnds(_ text: String, to fixture: Fixture) -> RecordingDriver.Seen {
        fixture.onLoop { $0.start() }
        LoopbackConnection.send(Array(text.utf8), to: fixture.peer)
        shutdown(fixture.peer, Int32(SHUT_WR))
        return fixture.wait { $0.peerEnds > 0 }
    }

    @Test func underEndsChannelThePeersEndUnwatchesTheSocket() throws {
        let fixture = try Fixture(hangUp: .endsChannel)
        defer { fixture.stop() }
        let seen = Self.peerSendsAndEnds("hello", to: fixture)
        #expect(seen.bytes == Array("hello".utf8))
        #expect(seen.peerEnds == 1)
        #expect(!seen.watched, "nothing more to read: the end would be reported again and again")
        #expect(seen.open, "the driver decides when to close")
    }

    @Test func underClosesReadHalfThePeersEndLeavesTheWriteHalfWorking() throws {
        let fixture = try Fixture(hangUp: .closesReadHalf)
        defer { fixture.stop() }
        let seen = Self.peerSendsAndEnds("ping", to: fixture)
        #expect(seen.bytes == Array("ping".utf8))
        #expect(seen.watched, "still watched: writes go on")
        let written = fixture.onLoop { driver in
            try? driver.core.queue(Array("pong".utf8))
            driver.flush()
            return driver.core.bytesWritten
        }
        #expect(written == 4)
        #expect(LoopbackConnection.receive(4, from: fixture.peer) == Array("pong".utf8))
    }

    @Test func aHangUpIsReadEvenWhileTheDriverHoldsReadingBack() throws {
        let fixture = try Fixture(hangUp: .endsChannel)
        defer { fixture.stop() }
        fixture.onLoop { driver in
            driver.wantsBytes = false
            driver.start()
        }
        LoopbackConnection.send(Array("x".utf8), to: fixture.peer)
        shutdown(fixture.peer, Int32(SHUT_WR))
        // Over loopback the bytes and the FIN are there once the calls returned.
        let heldBack = fixture.onLoop { driver in
            driver.handleIO(.readable)
            return driver.seen.withLock { $0.bytes.isEmpty && $0.peerEnds == 0 }
        }
        #expect(heldBack == true, "held back: a readable report reads nothing")
        // Reported as long as it lasts (level-triggered): the first read takes the byte, a later one the end.
        _ = waitUntil(timeout: 10) {
            fixture.onLoop { driver in
                driver.handleIO(.hangup)
                return driver.seen.withLock { $0.peerEnds > 0 }
            } == true
        }
        let ended = fixture.wait { $0.peerEnds > 0 }
        #expect(ended.bytes == Array("x".utf8))
        #expect(ended.peerEnds == 1)
        #expect(ended.failures.isEmpty)
    }

    @Test func aHandOverMovesTheSocketAndItsQueueAndTheCoreLeftClosesNothing() throws {
        let fixture = try Fixture(hangUp: .endsChannel)
        defer { close(fixture.peer); fixture.group.shutdown() }
        fixture.onLoop { $0.start() }
        let handedOver = fixture.onLoop { driver in
            try? driver.core.queue(Array("queued".utf8))
            let core = driver.core.handOver(hangUp: .closesReadHalf, to: fixture.loop)
            let left = driver.core.phase == .handedOver && driver.core.socket == nil && !driver.core.isWatched
                && !driver.core.hasQueuedWrites
            // Closing what was handed over is a no-op.
            driver.core.close()
            let moved = core.hangUp == .closesReadHalf && core.bytesQueued == 6 && !core.isWatched
            let successor = RecordingDriver(core: core)
            successor.start()
            successor.flush()
            return (successor, left && driver.core.phase == .handedOver, moved)
        }
        let (successor, left, moved) = try #require(handedOver)
        #expect(left, "the core left behind owns nothing")
        #expect(moved, "the socket, the queue and the counters moved, unwatched until the next driver starts")
        #expect(LoopbackConnection.receive(6, from: fixture.peer) == Array("queued".utf8))
        LoopbackConnection.send(Array("after".utf8), to: fixture.peer)
        _ = waitUntil(timeout: 10) { successor.seen.withLock { $0.bytes.count == 5 } }
        #expect(successor.seen.withLock { $0.bytes } == Array("after".utf8))
        #expect(fixture.driver.seen.withLock { $0.bytes.isEmpty })
        fixture.loop.execute { successor.core.close() }
    }

    @Test func aHandOverToAnotherLoopIsWatchedReadAndWrittenThereOnly() throws {
        let fixture = try Fixture(hangUp: .endsChannel)
        let other = try EventLoopGroup(loopCount: 1, namePrefix: "fw-core-other")
        defer { close(fixture.peer); fixture.group.shutdown(); other.shutdown() }
        let target = other.next()
        fixture.onLoop { $0.start() }
        let handedOver = fixture.onLoop { driver in
            try? driver.core.queue(Array("queued".utf8))
            return RecordingDriver(core: driver.core.handOver(hangUp: .closesReadHalf, to: target))
        }
        let successor = try #require(handedOver)
        #expect(successor.core.loop === target)
        let started = LockedBox(false)
        target.execute {
            successor.start()
            successor.flush()
            started.withLock { $0 = true }
        }
        _ = waitUntil(timeout: 10) { started.withLock { $0 } }
        #expect(LoopbackConnection.receive(6, from: fixture.peer) == Array("queued".utf8))
        LoopbackConnection.send(Array("after".utf8), to: fixture.peer)
        _ = waitUntil(timeout: 10) { successor.seen.withLock { $0.bytes.count == 5 } }
        let seen = successor.seen.withLock { $0 }
        #expect(seen.bytes == Array("after".utf8))
        #expect(seen.offLoopReports == 0, "every readiness report came on the target loop")
        #expect(fixture.driver.seen.withLock { $0.bytes.isEmpty }, "the old loop no longer watches the socket")
        let closed = LockedBox(false)
        target.execute {
            successor.core.close()
            closed.withLock { $0 = true }
        }
        _ = waitUntil(timeout: 10) { closed.withLock { $0 } }
    }
}
