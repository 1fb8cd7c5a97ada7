import Foundation
import FWTransport
@testable import FWURLSession
import Testing
import TestSupport

// `Data(adopting:)`: a large body piece becomes the delegate's `Data` without a copy, and neither value can see
// the other's changes afterwards.
@Suite struct DataAdoptingTests {
    /// A piece with every byte value in it, `count` long.
    private static func piece(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    }

    @Test func aLargePieceIsSharedNotCopied() {
        var bytes = Self.piece(64 * 1024)
        let expected = bytes
        // `expected` shares the storage too: make `bytes` the only owner of a storage of its own first.
        let address = bytes.withUnsafeMutableBytes { UnsafeRawPointer($0.baseAddress) }
        let data = Data(adopting: consume bytes)
        #expect(data.withUnsafeBytes { $0.baseAddress } == address)
        #expect(data.count == expected.count)
        #expect(data.elementsEqual(expected))
    }

    @Test func anAdoptedPieceGoesBackToItsRecyclerOnlyWhenItsDataDies() throws {
        let loops = try ManualEventLoopGroup()
        defer { loops.shutdown() }
        let recycler = BodyPieceRecycler(loop: loops.loop)
        var bytes = Self.piece(64 * 1024)
        let expected = bytes
        let address = bytes.withUnsafeMutableBytes { UnsafeRawPointer($0.baseAddress) }
        var data: Data? = Data(adopting: consume bytes, recycling: recycler)
        let copy = data
        data = nil
        #expect(recycler.keptCount == 0, "another Data still shares the storage")
        #expect(copy?.elementsEqual(expected) == true)
        _ = consume copy
        #expect(recycler.keptCount == 1)
        #expect(recycler.takePiece(count: 64 * 1024)?.withUnsafeBytes { $0.baseAddress } == address)
    }

    @Test func aSharedPieceIsCopiedSoTheOtherArrayNeverSeesAChange() {
        let original = Self.piece(Data.adoptionMinimum)
        var data = Data(adopting: original)
        data[0] ^= 0xFF
        data[data.count - 1] ^= 0xFF
        #expect(original == Self.piece(Data.adoptionMinimum))
        #expect(data.first == original[0] ^ 0xFF)
        #expect(data.last == original[original.count - 1] ^ 0xFF)
    }

    @Test func anAdoptedPieceChangedOrGrownStaysAValue() {
        var bytes = Self.piece(16 * 1024)
        let address = bytes.withUnsafeMutableBytes { UnsafeRawPointer($0.baseAddress) }
        let data = Data(adopting: consume bytes)
        var changed = data
        changed[5] = 0
        changed.append(contentsOf: [1, 2, 3])
        #expect(data.withUnsafeBytes { $0.baseAddress } == address)
        #expect(data.elementsEqual(Self.piece(16 * 1024)))
        #expect(changed.count == 16 * 1024 + 3)
        #expect(changed[5] == 0)
        #expect(changed.suffix(3).elementsEqual([1, 2, 3]))
    }

    @Test(arguments: [0, 1, 14, 15, Data.adoptionMinimum - 1])
    func aSmallPieceIsCopied(count: Int) {
        let bytes = Self.piece(count)
        let data = Data(adopting: bytes)
        #expect(data.count == count)
        #expect(data.elementsEqual(bytes))
    }
}
