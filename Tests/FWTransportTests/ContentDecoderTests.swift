import Foundation
import Testing
@testable import FWTransport
import TestSupport

// Content-Encoding decoding with zlib, fed whole and a byte at a time, in bounded slices.
@Suite struct ContentDecoderTests {
    /// Pushes `piece` and takes every slice it yields.
    static func decode(_ piece: [UInt8], with decoder: ContentDecoder) throws -> [UInt8] {
        try decoder.push(piece)
        var decoded: [UInt8] = []
        while decoder.hasPendingOutput { decoded += try decoder.nextSlice() }
        return decoded
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
        for encoding in ["identity", "br", "zstd", "gzip, br", ""] {
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
        let decoder = try #require(ContentDecoder(contentEncoding: "gzip"))
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
        #expect(total == 4 << 20)
        #expect(slices >= total / ContentDecoder.sliceSize)
    }
}
