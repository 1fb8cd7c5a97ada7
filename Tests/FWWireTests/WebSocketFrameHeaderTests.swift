// WebSocketMaskingKey: applying the key eight bytes at a time equals the RFC 6455 §5.3 definition byte by
// byte, at every payload offset and length; applying it twice restores the payload.

import FWWire
import Testing

@Suite struct WebSocketFrameHeaderTests {
    /// RFC 6455 §5.3: octet i of the payload is XORed with octet i MOD 4 of the key.
    private func reference(_ payload: [UInt8], key: [UInt8], offset: Int) -> [UInt8] {
        payload.enumerated().map { $0.element ^ key[($0.offset + offset) % 4] }
    }

    @Test(arguments: 0..<4)
    func maskingMatchesTheDefinitionAtEveryOffsetAndLength(_ offset: Int) {
        let key = WebSocketMaskingKey(rawValue: 0x37FA_213D)
        for count in 0..<40 {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 5) }
            var masked = payload
            masked.withUnsafeMutableBytes { key.apply(to: $0, payloadOffset: offset) }
            #expect(masked == reference(payload, key: [0x37, 0xFA, 0x21, 0x3D], offset: offset), "\(count) bytes")
            masked.withUnsafeMutableBytes { key.apply(to: $0, payloadOffset: offset) }
            #expect(masked == payload)
        }
    }

    @Test func aPayloadMaskedInPiecesEqualsOneMaskedWhole() {
        let key = WebSocketMaskingKey(rawValue: 0xA1B2_C3D4)
        let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        var whole = payload
        whole.withUnsafeMutableBytes { key.apply(to: $0, payloadOffset: 0) }
        var pieces = payload
        pieces.withUnsafeMutableBytes { buffer in
            var start = 0
            for size in [1, 2, 3, 7, 8, 9, 15, 16, 17, 100, 822] {
                let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + size])
                key.apply(to: piece, payloadOffset: start)
                start += size
            }
        }
        #expect(pieces == whole)
    }

    @Test func keysPrintAsEightHexDigits() {
        #expect(WebSocketMaskingKey(rawValue: 0x37FA_213D).description == "37fa213d")
        #expect(WebSocketMaskingKey(rawValue: 0x0000_00FF).description == "000000ff")
    }
}
