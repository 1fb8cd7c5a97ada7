import Foundation
import Testing
@testable import FWTransport

// Content-Encoding decoding with zlib, fed whole and a byte at a time.
@Suite struct ContentDecoderTests {
    static let plain = Array(String(repeating: "hello, gzip\n", count: 100).utf8)
    static let gzip = [UInt8](Data(base64Encoded: "H4sIAAAAAAACA8tIzcnJ11FIr8os4MoYZY+yR9mj7EHMBgCKFA1AsAQAAA==")!)
    static let zlibWrapped = [UInt8](Data(base64Encoded: "eJzLSM3JyddRSK/KLODKGGWPskfZo+xBzAYANkCeIA==")!)
    static let rawDeflate = [UInt8](Data(base64Encoded: "y0jNycnXUUivyizgyhhlj7JH2aPsQcwGAA==")!)

    @Test(arguments: [("gzip", gzip), ("x-gzip", gzip), ("deflate", zlibWrapped), ("Deflate ", rawDeflate)])
    func decodesWholeAndInPieces(_ encoding: String, _ encoded: [UInt8]) throws {
        let whole = try #require(ContentDecoder(contentEncoding: encoding))
        #expect(try whole.decode(encoded) == Self.plain)
        try whole.finish()

        let pieces = try #require(ContentDecoder(contentEncoding: encoding))
        var decoded: [UInt8] = []
        for byte in encoded { decoded += try pieces.decode([byte]) }
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
            _ = try first.decode(corrupt)
            try first.finish()
        }

        let truncated = try #require(ContentDecoder(contentEncoding: "gzip"))
        _ = try truncated.decode(Array(Self.gzip.dropLast(6)))
        #expect(throws: ContentDecoder.Failure.self) { try truncated.finish() }

        let trailing = try #require(ContentDecoder(contentEncoding: "gzip"))
        #expect(throws: ContentDecoder.Failure.self) { _ = try trailing.decode(Self.gzip + [0x41]) }
    }

    @Test func anEmptyBodyIsFine() throws {
        try #require(ContentDecoder(contentEncoding: "gzip")).finish()
    }
}
