// BodyPieceRecycler: which pieces it keeps, how many, and nothing after the session ended.

@testable import FWTransport
import Testing

@Suite struct BodyPieceRecyclerTests {
    private static func piece(_ count: Int) -> [UInt8] {
        [UInt8](repeating: 7, count: count)
    }

    @Test func aWholeReadsPieceIsKeptAndTakenForAReadItCovers() {
        let recycler = BodyPieceRecycler()
        var piece = Self.piece(ChannelCore.readSize)
        let address = piece.withUnsafeMutableBytes { UnsafeRawPointer($0.baseAddress) }
        recycler.giveBack(consume piece)
        #expect(recycler.keptCount == 1)
        #expect(recycler.takePiece(count: ChannelCore.readSize + 1) == nil, "too short for that read: kept")
        #expect(recycler.keptCount == 1)
        let taken = recycler.takePiece(count: ChannelCore.readSize)
        #expect(taken?.withUnsafeBytes { $0.baseAddress } == address)
        #expect(recycler.keptCount == 0)
        #expect(recycler.takePiece(count: 1) == nil)
    }

    @Test func aShortOrOversizedPieceIsNotKept() {
        let recycler = BodyPieceRecycler()
        recycler.giveBack(Self.piece(ChannelCore.readSize - 1))
        var large = Self.piece(ChannelCore.readSize)
        large.reserveCapacity(3 * ChannelCore.readSize)
        recycler.giveBack(large)
        #expect(recycler.keptCount == 0)
    }

    @Test func atMostMaximumKeptAreKept() {
        let recycler = BodyPieceRecycler()
        for _ in 0..<(BodyPieceRecycler.maximumKept + 2) {
            recycler.giveBack(Self.piece(ChannelCore.readSize))
        }
        #expect(recycler.keptCount == BodyPieceRecycler.maximumKept)
    }

    @Test func aClosedRecyclerKeepsNothing() {
        let recycler = BodyPieceRecycler()
        recycler.giveBack(Self.piece(ChannelCore.readSize))
        recycler.close()
        #expect(recycler.keptCount == 0)
        recycler.giveBack(Self.piece(ChannelCore.readSize))
        #expect(recycler.keptCount == 0)
        #expect(recycler.takePiece(count: 1) == nil)
    }
}
