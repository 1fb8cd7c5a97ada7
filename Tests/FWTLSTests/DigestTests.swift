import FWTLS
import Testing

/// The digests against the published test vectors (FIPS 180-4 examples, RFC 1321 §A.5, RFC 6455 §1.3).
@Suite struct DigestTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let digest: Digest
        let input: String
        let hex: String
        var testDescription: String { "\(digest) of \"\(input.prefix(20))\"" }
    }

    static let vectors = [
        Vector(digest: .md5, input: "", hex: "d41d8cd98f00b204e9800998ecf8427e"),
        Vector(digest: .md5, input: "abc", hex: "900150983cd24fb0d6963f7d28e17f72"),
        Vector(digest: .sha1, input: "abc", hex: "a9993e364706816aba3e25717850c26c9cd0d89d"),
        Vector(digest: .sha256, input: "abc",
               hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(digest: .sha512_256, input: "abc",
               hex: "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"),
    ]

    @Test(arguments: vectors)
    func matchesThePublishedVector(_ vector: Vector) {
        #expect(vector.digest.hexHash(vector.input) == vector.hex)
        #expect(vector.digest.hash(vector.input).count == vector.digest.byteCount)
    }

    @Test func aSliceHashesLikeAnArray() {
        let bytes: [UInt8] = Array("xxabcxx".utf8)
        #expect(Digest.sha256.hash(bytes[2..<5]) == Digest.sha256.hash("abc"))
    }

    @Test func theWebSocketAcceptExampleOfRFC6455() {
        let key = "dGhlIHNhbXBsZSBub25jZQ==" + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
        #expect(Base64.encode(Digest.sha1.hash(key)) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
