// BodyPieceRecycler: which pieces it keeps, how many, for how long (on a manual clock), and nothing after the
// session ended.

import FWLoop
@testable import FWTransport
import Testing
import TestSupport

@Suite struct BodyPieceRecyclerTests {
    private static func piece(_ count: Int) -> [UInt8] {
        [UInt8](repeating: 7, count: count)
    }

    /// A recycler on a manual clock, and its loops (shut down by `body`'s end).
    private static func withRecycler(_ body: (BodyPieceRecycler, ManualEventLoopGroup) throws -> Void) throws {
        let loops = try ManualEventLoopGroup()
        defer { loops.shutdown() }
        try body(BodyPieceRecycler(loop: loops.loop), loops)
    }

    @Test func aWholeReadsPieceIsKeptAndTakenForAReadItCovers() throws {
        try Self.withRecycler { recycler, _ in
            var piece = Self.piece(ChannelCore.readSize)
            let address = piece.withUnsafeMutableBytes { UnsafeRawPointer($0.baseAddress) }
            let capacity = piece.capacity
            recycler.giveBack(consume piece)
            #expect(recycler.keptCount == 1)
            #expect(recycler.takePiece(count: capacity + 1) == nil, "no room for that read: kept")
            #expect(recycler.keptCount == 1)
            let taken = recycler.takePiece(count: ChannelCore.readSize)
            #expect(taken?.withUnsafeBytes { $0.baseAddress } == address)
            #expect(recycler.keptCount == 0)
            #expect(recycler.takePiece(count: 1) == nil)
        }
    }

    @Test func aShortReadsPieceComesBackWithTheCountTheReadNeedsInItsOwnStorage() throws {
        try Self.withRecycler { recycler, _ in
            var piece = [UInt8](repeating: 7, count: 100)
            piece.reserveCapacity(ChannelCore.readSize)
            let address = piece.withUnsafeMutableBytes { UnsafeRawPointer($0.baseAddress) }
            recycler.giveBack(consume piece)
            #expect(recycler.keptCount == 1)
            let taken = recycler.takePiece(count: ChannelCore.readSize)
            #expect(taken?.count == ChannelCore.readSize)
            #expect(taken?.withUnsafeBytes { $0.baseAddress } == address, "not reallocated")
        }
    }

    @Test func aPieceWithoutRoomForARead_orWithFarMore_isNotKept() throws {
        try Self.withRecycler { recycler, _ in
            recycler.giveBack(Self.piece(ChannelCore.readSize / 2))
            var large = Self.piece(ChannelCore.readSize)
            large.reserveCapacity(3 * ChannelCore.readSize)
            recycler.giveBack(large)
            #expect(recycler.keptCount == 0)
        }
    }

    @Test func atMostMaximumKeptAreKept() throws {
        try Self.withRecycler { recycler, _ in
            for _ in 0..<(BodyPieceRecycler.maximumKept + 2) {
                recycler.giveBack(Self.piece(ChannelCore.readSize))
            }
            #expect(recycler.keptCount == BodyPieceRecycler.maximumKept)
        }
    }

    @Test func aPieceUnusedForTheIdleIntervalIsFreed_oneUsedMeanwhileIsKept() throws {
        try Self.withRecycler { recycler, loops in
            recycler.giveBack(Self.piece(ChannelCore.readSize))
            #expect(waitUntil { (try? loops.nextTimerDeadline()) != nil }, "the sweep is armed")
            try loops.advanceTime(by: .seconds(3))
            recycler.giveBack(Self.piece(ChannelCore.readSize)) // due 3 s later than the first
            try loops.advanceTime(by: .seconds(2))
            #expect(recycler.keptCount == 1, "the first piece sat unused for the idle interval")
            try loops.advanceTime(by: BodyPieceRecycler.idleInterval)
            #expect(recycler.keptCount == 0)
            #expect(try loops.nextTimerDeadline() == nil, "nothing kept: the sweep is not armed again")
        }
    }

    @Test func aClosedRecyclerKeepsNothing() throws {
        try Self.withRecycler { recycler, _ in
            recycler.giveBack(Self.piece(ChannelCore.readSize))
            recycler.close()
            #expect(recycler.keptCount == 0)
            recycler.giveBack(Self.piece(ChannelCore.readSize))
            #expect(recycler.keptCount == 0)
            #expect(recycler.takePiece(count: 1) == nil)
        }
    }
}
