import Foundation
import FWLoop
@testable import FWURLSession
import Testing
import TestSupport

// The session's pool of large body buffers on a manual clock, no server: which lengths it lends, which kept
// buffer a body reuses, its bounds, the sweep after the idle interval, closing; and a collector writing into a
// pooled buffer: the one `Data` it hands over owns the buffer and gives it back when it dies, a body cut short or
// grown past its announced length still comes out whole.
@Suite struct BodyBufferPoolTests {
    /// A pool on a manual loop.
    final class Harness: Sendable {
        let loops: ManualEventLoopGroup
        let pool: BodyBufferPool

        init() throws {
            loops = try ManualEventLoopGroup()
            pool = BodyBufferPool(loop: loops.loop, clock: SessionClock(loops.group.clock))
        }

        deinit { loops.shutdown() }

        var kept: Int { pool.counts.kept }
        var reused: Int { pool.counts.reused }
    }

    static let mebibyte = 1 << 20

    /// `count` bytes of a pattern that differs with `seed`.
    static func pattern(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    }

    /// A `handOver` collector with the pool, fed `body` in 64 KiB pieces after announcing `announced` bytes.
    static func collect(_ body: [UInt8], announced: Int? = nil, pool: BodyBufferPool) throws -> BodyCollector {
        var limits = HTTPLimits()
        limits.maxCollectedBodySize = 64 << 20
        var collector = BodyCollector(.handOver, limits: limits, url: nil, buffers: pool)
        try collector.expect(length: Int64(announced ?? body.count), method: "GET", status: 200)
        for start in stride(from: 0, to: body.count, by: 64 << 10) {
            try collector.append(body[start..<min(start + (64 << 10), body.count)])
        }
        return collector
    }

    // MARK: The pool

    @Test(arguments: [(0, false), (BodyBufferPool.minimumLength - 1, false), (BodyBufferPool.minimumLength, true),
                      (BodyBufferPool.maximumLength, true), (BodyBufferPool.maximumLength + 1, false)])
    func onlyLargeBodiesOfBoundedLengthAreLent(length: Int, lent: Bool) throws {
        let harness = try Harness()
        #expect((harness.pool.take(length: length) != nil) == lent)
    }

    @Test func aBufferGivenBackIsKeptAndReusedByABodyItFits() throws {
        let harness = try Harness()
        var buffer = harness.pool.take(length: Self.mebibyte)
        buffer = nil
        #expect(harness.kept == 1)
        #expect(buffer == nil)
        // A slightly shorter body fits the same buffer; one under half its size does not take it.
        let small = harness.pool.take(length: Self.mebibyte / 2 - 1)
        #expect(harness.reused == 0 && harness.kept == 1)
        let similar = harness.pool.take(length: Self.mebibyte - 100)
        #expect(harness.reused == 1 && harness.kept == 0)
        withExtendedLifetime((small, similar)) {}
    }

    @Test func keptBuffersAreBoundedInCountAndBytes() throws {
        let harness = try Harness()
        var buffers = (0..<(BodyBufferPool.maximumKept + 2)).map { _ in harness.pool.take(length: Self.mebibyte) }
        buffers.removeAll()
        #expect(harness.kept == BodyBufferPool.maximumKept)
        #expect(harness.pool.counts.keptBytes == BodyBufferPool.maximumKept * Self.mebibyte)
        let large = (0..<3).map { _ in harness.pool.take(length: BodyBufferPool.maximumLength) }
        withExtendedLifetime(large) {}
        #expect(harness.pool.counts.keptBytes <= BodyBufferPool.maximumKeptBytes)
    }

    @Test func keptBuffersAreFreedAfterTheIdleIntervalNeverBefore() throws {
        let harness = try Harness()
        _ = harness.pool.take(length: Self.mebibyte) // given back at once
        try harness.loops.advanceTime(by: .seconds(2))
        _ = harness.pool.take(length: 2 * Self.mebibyte) // a second one, 2 s later
        #expect(harness.kept == 2)
        try harness.loops.advanceTime(by: .seconds(BodyBufferPool.idleInterval) - .seconds(2) - .nanoseconds(1))
        #expect(harness.kept == 2)
        try harness.loops.advanceTime(by: .nanoseconds(1))
        #expect(harness.kept == 1)
        // The timer re-armed for the second by itself.
        try harness.loops.advanceTime(by: .seconds(2))
        #expect(harness.kept == 0)
        #expect(try harness.loops.nextTimerDeadline() == nil)
    }

    @Test func closingFreesWhatIsKeptAndWhatComesBackLater() throws {
        let harness = try Harness()
        var inUse = harness.pool.take(length: Self.mebibyte)
        _ = harness.pool.take(length: Self.mebibyte) // given back at once
        #expect(harness.kept == 1)
        harness.pool.close()
        #expect(harness.kept == 0)
        inUse = nil
        #expect(harness.kept == 0 && inUse == nil)
    }

    // MARK: A collector writing into the pool

    @Test func theCollectedBodyIsOneDataThatGivesTheBufferBackWhenItDies() throws {
        let harness = try Harness()
        let body = Self.pattern(Self.mebibyte + 5, seed: 1)
        var collector = try Self.collect(body, pool: harness.pool)
        var first = collector.collected
        #expect(first == Data(body))
        // Every read is the same `Data` (one storage), not a second one over the same memory.
        var taken = collector.take()
        #expect(taken?.withUnsafeBytes { $0.baseAddress } == first?.withUnsafeBytes { $0.baseAddress })
        #expect(harness.kept == 0)
        first = nil
        #expect(harness.kept == 0) // `taken` still owns it
        taken = nil
        #expect(harness.kept == 1)
        // The next body of that size reuses it and comes out whole.
        let second = Self.pattern(Self.mebibyte, seed: 2)
        var next = try Self.collect(second, pool: harness.pool)
        #expect(harness.reused == 1)
        #expect(next.take() == Data(second))
    }

    @Test func aDeliveredBodyChangedInPlaceStaysItsOwnersAlone() throws {
        let harness = try Harness()
        let body = Self.pattern(Self.mebibyte, seed: 3)
        var collector = try Self.collect(body, pool: harness.pool)
        let taken = collector.take()
        var data = try #require(taken)
        let kept = data // a second value of the same storage
        data[0] ^= 0xFF
        #expect(kept == Data(body))
        #expect(data[0] == body[0] ^ 0xFF)
        // While both live, a body of the same size gets a buffer of its own.
        let other = Self.pattern(Self.mebibyte, seed: 4)
        var next = try Self.collect(other, pool: harness.pool)
        #expect(harness.reused == 0)
        #expect(next.take() == Data(other))
        #expect(kept == Data(body))
    }

    @Test func aBodyCutShortIsACopyAndItsBufferComesBackWithTheCollector() throws {
        let harness = try Harness()
        let body = Self.pattern(Self.mebibyte, seed: 5)
        var collector: BodyCollector? = try Self.collect(Array(body.prefix(300_000)), announced: body.count,
                                                         pool: harness.pool)
        #expect(collector?.collected == Data(body.prefix(300_000)))
        collector = nil
        #expect(harness.kept == 1)
    }

    @Test func aBodyLongerThanAnnouncedMovesOutOfItsBuffer() throws {
        let harness = try Harness()
        let body = Self.pattern(Self.mebibyte + 300_000, seed: 6)
        // Announced shorter than it is (a decoded body's encoded length): once the buffer is full, the body moves.
        var collector = try Self.collect(body, announced: Self.mebibyte - 1000, pool: harness.pool)
        #expect(collector.take() == Data(body))
        #expect(harness.kept == 1)
    }
}
