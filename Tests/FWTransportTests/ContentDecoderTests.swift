import Foundation
import Testing
@testable import FWTransport
import TestSupport

// Content-Encoding decoding with zlib, fed whole and a byte at a time, in bounded slices; transfer codings
// chained before the content coding (brotli's own tests: BrotliDecoderTests).
@Suite struct ContentDecoderTests {
    /// Pushes `piece` and takes every slice it yields.
    static func decode(_ piece: [UInt8], with decoder: ContentDecoder) throws -> [UInt8] {
        try decoder.push(piece)
        var decoded: [UInt8] = []
        while decoder.hasPendingOutput { decoded += try decoder.nextSlice() }
        return decoded
    }

    /// Pushes `bomb` and takes every slice, each at most `sliceSize` bytes and all zeros: the decoded size and
    /// the number of slices.
    static func drainBomb(_ bomb: [UInt8], with decoder: ContentDecoder) throws -> (total: Int, slices: Int) {
        try decoder.push(bomb)
        var total = 0, slices = 0
        while decoder.hasPendingOutput {
            let slice = try decoder.nextSlice()
            #expect(slice.count <= ContentDecoder.sliceSize)
            #expect(slice.allSatisfy { $0 == 0 })
            total += slice.count
            slices += 1
        }
        try decoder.finish()
        return (total, slices)
    }

    static let plain = Array(String(repeating: "hello, gzip\n", count: 100).utf8)
    static let gzip = [UInt8](Data(base64Encoded: "H4sIAAAAAAACA8tIzcnJ11FIr8os4MoYZY+yR9mj7EHMBgCKFA1AsAQAAA==")!)
    static let zlibWrapped = [UInt8](Data(base64Encoded: "eJzLSM3JyddRSK/KLODKGGWPskfZo+xBzAYANkCeIA==")!)
    static let rawDeflate = [UInt8](Data(base64Encoded: "y0jNycnXUUivyizgyhhlj7JH2aPsQcwGAA==")!)

    @Test(arguments: [("gzip", gzip), ("x-gzip", gzip), ("deflate", zlibWrapped), ("Deflate ", rawDeflate)])
    func decodesWholeAndInPieces(_ encoding: String, _ encoded: [UInt8]) throws {
        let whole = try #require(ContentDecoder(contentEncoding: encoding))
        #expect(try Self.decode(encoded, with: whole) == Self.plain)
        try whole.finish()

        let pieces = try #require(ContentDecoder(contentEncoding: encoding))
        var decoded: [UInt8] = []
        for byte in encoded { decoded += try Self.decode([byte], with: pieces) }
        try pieces.finish()
        #expect(decoded == Self.plain)
    }

    @Test func otherCodingsAreLeftAlone() {
        for encoding in ["identity", "zstd", "gzip, br", "compress", ""] {
            #expect(ContentDecoder(contentEncoding: encoding) == nil)
        }
    }

    @Test func corruptTruncatedAndTrailingDataAreErrors() throws {
        var corrupt = Self.gzip
        corrupt[12] ^= 0xFF
        let first = try #require(ContentDecoder(contentEncoding: "gzip"))
        #expect(throws: ContentDecoder.Failure.self) {
            _ = try Self.decode(corrupt, with: first)
            try first.finish()
        }

        let truncated = try #require(ContentDecoder(contentEncoding: "gzip"))
        _ = try Self.decode(Array(Self.gzip.dropLast(6)), with: truncated)
        #expect(throws: ContentDecoder.Failure.self) { try truncated.finish() }

        let trailing = try #require(ContentDecoder(contentEncoding: "gzip"))
        #expect(throws: ContentDecoder.Failure.self) { _ = try Self.decode(Self.gzip + [0x41], with: trailing) }
    }

    @Test func anEmptyBodyIsFine() throws {
        try #require(ContentDecoder(contentEncoding: "gzip")).finish()
    }

    // Issue 18, item 4: a piece that inflates a thousandfold comes out in slices of at most `sliceSize`.
    @Test func aBombComesOutInBoundedSlices() throws {
        let bomb = try GzipBomb.bytes(decodedMebibytes: 4)
        let (total, slices) = try Self.drainBomb(bomb, with: try #require(ContentDecoder(contentEncoding: "gzip")))
        #expect(total == 4 << 20)
        #expect(slices >= total / ContentDecoder.sliceSize)
    }

    // MARK: Transfer codings before the content coding (issue 29, item 3)

    @Test func transferCodingsAreUndoneLastFirstThenTheContentCoding() throws {
        // deflate applied first, then gzip as transfer codings, over a gzip content coding.
        let transferred = try ZlibTool.compress(ZlibTool.compress(Self.gzip, gzip: false), gzip: true)
        let decoder = try #require(ContentDecoder(transferCodings: [.deflate, .gzip], contentEncoding: "gzip"))
        var decoded: [UInt8] = []
        for start in stride(from: 0, to: transferred.count, by: 7) {
            decoded += try Self.decode(Array(transferred[start..<min(start + 7, transferred.count)]), with: decoder)
        }
        try decoder.finish()
        #expect(decoded == Self.plain)

        // Without a content coding to decode (the request did not ask), only the transfer codings go.
        let undecoded = try #require(ContentDecoder(transferCodings: [.gzip], contentEncoding: nil))
        #expect(try Self.decode(try ZlibTool.compress(Self.gzip, gzip: true), with: undecoded) == Self.gzip)
        try undecoded.finish()
        #expect(ContentDecoder(transferCodings: [], contentEncoding: nil) == nil)
        #expect(ContentDecoder(transferCodings: [], contentEncoding: "identity") == nil)
    }

    @Test func aCorruptOrTruncatedTransferCodingIsAnError() throws {
        let corrupt = try #require(ContentDecoder(transferCodings: [.gzip], contentEncoding: nil))
        #expect(throws: ContentDecoder.Failure.self) { _ = try Self.decode(Array("not gzip".utf8), with: corrupt) }

        let truncated = try #require(ContentDecoder(transferCodings: [.gzip], contentEncoding: "gzip"))
        let wrapped = try ZlibTool.compress(Self.gzip, gzip: true)
        _ = try Self.decode(Array(wrapped.dropLast(4)), with: truncated)
        #expect(throws: ContentDecoder.Failure.self) { try truncated.finish() }
    }

    // A bomb inside a bomb: gzip transfer coding over a gzip content coding of 4 MiB of zeros still comes out
    // in slices of at most `sliceSize`.
    @Test func aNestedBombComesOutInBoundedSlices() throws {
        let bomb = try ZlibTool.compress(try GzipBomb.bytes(decodedMebibytes: 4), gzip: true)
        let decoder = try #require(ContentDecoder(transferCodings: [.gzip], contentEncoding: "gzip"))
        #expect(try Self.drainBomb(bomb, with: decoder).total == 4 << 20)
    }
}
