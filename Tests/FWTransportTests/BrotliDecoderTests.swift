import Foundation
import Testing
@testable import FWTransport
import TestSupport

// Content-Encoding: br through libbrotlidec loaded at run time (issue 28, item 3), on bodies encoded by
// Debian's brotli tool: whole and a byte at a time, in bounded slices; corrupt, truncated and trailing data
// are the same failure as a bad gzip body; without the library nothing is decoded and br is not advertised.
@Suite struct BrotliDecoderTests {
    static let plain = Array(String(repeating: "hello, brotli\n", count: 500).utf8)

    @Test func theLibraryIsLoadedWhenInstalled() {
        // Scripts/install-deps.sh installs libbrotli1: the tests run with it.
        #expect(BrotliLibrary.shared != nil)
        #expect(ContentCodings.decodesBrotli)
        #expect(ContentCodings.acceptEncoding == "gzip, deflate, br")
    }

    @Test func withoutTheLibraryBrIsNeitherDecodedNorAdvertised() {
        #expect(BrotliLibrary(soname: "libfw-no-such-brotli.so.1") == nil)
        #expect(BrotliDecoder(library: nil) == nil)
        #expect(ContentCodings.acceptEncoding(brotli: false) == "gzip, deflate")
    }

    @Test(arguments: [0, 5, 11])
    func decodesWholeAndAByteAtATime(quality: Int) throws {
        let encoded = try BrotliTool.encode(Self.plain, quality: quality)
        let whole = try #require(ContentDecoder(contentEncoding: "br"))
        #expect(try ContentDecoderTests.decode(encoded, with: whole) == Self.plain)
        try whole.finish()

        let pieces = try #require(ContentDecoder(contentEncoding: " BR"))
        var decoded: [UInt8] = []
        for byte in encoded { decoded += try ContentDecoderTests.decode([byte], with: pieces) }
        try pieces.finish()
        #expect(decoded == Self.plain)
    }

    @Test func corruptTruncatedAndTrailingDataAreErrors() throws {
        let encoded = try BrotliTool.encode(Self.plain)
        let corrupt = try #require(ContentDecoder(contentEncoding: "br"))
        #expect(throws: ContentDecoder.Failure.self) {
            _ = try ContentDecoderTests.decode(Array("this is not brotli at all".utf8), with: corrupt)
            try corrupt.finish()
        }

        let truncated = try #require(ContentDecoder(contentEncoding: "br"))
        _ = try ContentDecoderTests.decode(Array(encoded.dropLast(3)), with: truncated)
        #expect(throws: ContentDecoder.Failure.self) { try truncated.finish() }

        let trailing = try #require(ContentDecoder(contentEncoding: "br"))
        #expect(throws: ContentDecoder.Failure.self) {
            _ = try ContentDecoderTests.decode(encoded + [0x41], with: trailing)
        }
    }

    @Test func anEmptyBodyIsFine() throws {
        try #require(ContentDecoder(contentEncoding: "br")).finish()
    }

    // A few dozen bytes that expand to 16 MiB come out in slices of at most `sliceSize`.
    @Test func aBombComesOutInBoundedSlices() throws {
        let bomb = try BrotliTool.bomb(decodedMebibytes: 16)
        #expect(bomb.count < 1024)
        let decoder = try #require(ContentDecoder(contentEncoding: "br"))
        let (total, slices) = try ContentDecoderTests.drainBomb(bomb, with: decoder)
        #expect(total == 16 << 20)
        #expect(slices >= total / ContentDecoder.sliceSize)
    }
}
