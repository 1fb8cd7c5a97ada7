// WebSocketFrameDecoder: one row per framing rule of RFC 6455 §5.2-5.5, each run the four ways; the
// RFC's §5.7 examples; errors at the byte that decides them.

import FWWire
import Testing

// MARK: - Row builders

private func header(
    _ opcode: WebSocketOpcode, _ length: Int, fin: Bool = true, compressed: Bool = false, key: UInt32? = nil
) -> WebSocketFrameHeader {
    WebSocketFrameHeader(
        isFinal: fin, isCompressed: compressed, opcode: opcode, payloadLength: length,
        maskingKey: key.map(WebSocketMaskingKey.init(rawValue:)))
}

private func decodes(
    _ name: String, _ input: [UInt8], _ frames: [(WebSocketFrameHeader, [UInt8])], role: WebSocketRole = .client,
    limits: WebSocketLimits = WebSocketLimits(), compression: Bool = false, endOfStream: Bool = false
) -> FrameCase {
    FrameCase(
        name: name, input: input, role: role, limits: limits, allowsCompression: compression,
        endOfStream: endOfStream, frames: frames)
}

private func fails(
    _ name: String, _ input: [UInt8], _ error: WebSocketError, after frames: [(WebSocketFrameHeader, [UInt8])] = [],
    role: WebSocketRole = .client, limits: WebSocketLimits = WebSocketLimits(), compression: Bool = false,
    endOfStream: Bool = false
) -> FrameCase {
    FrameCase(
        name: name, input: input, role: role, limits: limits, allowsCompression: compression,
        endOfStream: endOfStream, frames: frames, error: error)
}

private let hello = bytes("Hello")
private let bytes256 = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 7) }
private let bytes64K = (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }

/// The first `count` bytes of `bytes256`.
private func first(_ count: Int) -> [UInt8] {
    Array(bytes256[..<count])
}

private func smallFrames(_ maxFramePayload: Int) -> WebSocketLimits {
    var limits = WebSocketLimits()
    limits.maxFramePayload = maxFramePayload
    return limits
}

// MARK: - Cases

private let frameCases: [FrameCase] = [
    // MARK: RFC 6455 §5.7 examples
    decodes("unmasked text 'Hello'", hex("81 05 48 65 6c 6c 6f"), [(header(.text, 5), hello)]),
    decodes(
        "masked text 'Hello' (to a server)", hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"),
        [(header(.text, 5, key: 0x37FA_213D), hello)], role: .server),
    decodes(
        "fragmented unmasked text", hex("01 03 48 65 6c 80 02 6c 6f"),
        [(header(.text, 3, fin: false), bytes("Hel")), (header(.continuation, 2), bytes("lo"))]),
    decodes("unmasked ping 'Hello'", hex("89 05 48 65 6c 6c 6f"), [(header(.ping, 5), hello)]),
    decodes(
        "masked pong 'Hello' (to a server)", hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"),
        [(header(.pong, 5, key: 0x37FA_213D), hello)], role: .server),
    decodes("256 bytes, 16-bit length", hex("82 7e 01 00") + bytes256, [(header(.binary, 256), bytes256)]),
    decodes(
        "64 KiB, 64-bit length", hex("82 7f 00 00 00 00 00 01 00 00") + bytes64K,
        [(header(.binary, 65536), bytes64K)]),

    // MARK: Lengths
    decodes("empty text frame", hex("81 00"), [(header(.text, 0), [])]),
    decodes("125 bytes in 7 bits", frame(0x82, first(125)), [(header(.binary, 125), first(125))]),
    decodes("126 bytes in 16 bits", frame(0x82, first(126)), [(header(.binary, 126), first(126))]),
    decodes(
        "65535 bytes in 16 bits", frame(0x82, Array(bytes64K[..<65535])),
        [(header(.binary, 65535), Array(bytes64K[..<65535]))]),
    fails("16-bit length under 126", hex("82 7e 00 7d") + first(125), .nonMinimalLength),
    fails("64-bit length under 65536", hex("82 7f 00 00 00 00 00 00 ff ff"), .nonMinimalLength),
    fails("64-bit length with the top bit set", hex("82 7f 80 00 00 00 00 00 00 00"), .invalidLength),
    fails("64-bit length with the top bit set, decided at its first byte", hex("82 7f ff"), .invalidLength),
    decodes("payload at the frame limit", frame(0x82, hello), [(header(.binary, 5), hello)], limits: smallFrames(5)),
    fails("payload over the frame limit", hex("82 06"), .frameTooLarge, limits: smallFrames(5)),
    fails("64-bit length over the frame limit", hex("82 7f 7f ff ff ff ff ff ff ff"), .frameTooLarge),

    // MARK: Opcodes and reserved bits
    fails("reserved data opcode 3", hex("83 00"), .reservedOpcode),
    fails("reserved data opcode 7", hex("87 00"), .reservedOpcode),
    fails("reserved control opcode 0xB", hex("8b 00"), .reservedOpcode),
    fails("reserved control opcode 0xF", hex("8f 00"), .reservedOpcode),
    fails("RSV1 without compression", hex("c1 00"), .reservedBitsSet),
    fails("RSV2", hex("a1 00"), .reservedBitsSet),
    fails("RSV3", hex("91 00"), .reservedBitsSet),
    fails("RSV2 with compression", hex("a1 00"), .reservedBitsSet, compression: true),
    decodes("RSV1 on a text frame with compression", hex("c1 01 00"), [(header(.text, 1, compressed: true), [0])],
            compression: true),
    decodes("RSV1 on a first binary fragment with compression", hex("42 00 80 00"),
            [(header(.binary, 0, fin: false, compressed: true), []), (header(.continuation, 0), [])],
            compression: true),
    fails("RSV1 on a continuation", hex("41 00 c0 00"), .reservedBitsSet,
          after: [(header(.text, 0, fin: false, compressed: true), [])], compression: true),
    fails("RSV1 on a ping", hex("c9 00"), .reservedBitsSet, compression: true),

    // MARK: Control frames
    decodes("125-byte ping", frame(0x89, first(125)), [(header(.ping, 125), first(125))]),
    fails("126-byte ping", frame(0x89, first(126)), .controlFrameTooLong),
    fails("close with a 16-bit length", hex("88 7e 00 7e"), .controlFrameTooLong),
    fails("ping without FIN", hex("09 00"), .fragmentedControlFrame),
    fails("close without FIN", hex("08 00"), .fragmentedControlFrame),
    fails("pong without FIN", hex("0a 00"), .fragmentedControlFrame),

    // MARK: Masking
    fails("masked frame from a server", hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"), .unexpectedMask),
    fails("unmasked frame from a client", hex("81 05 48 65 6c 6c 6f"), .missingMask, role: .server),
    decodes(
        "masked 16-bit length (to a server)", frame(0x82, bytes256, key: 0x0102_0304),
        [(header(.binary, 256, key: 0x0102_0304), bytes256)], role: .server),

    // MARK: Several frames, end of stream
    decodes(
        "frames back to back", frame(0x89, "") + frame(0x81, "a") + frame(0x8a, "b"),
        [(header(.ping, 0), []), (header(.text, 1), bytes("a")), (header(.pong, 1), bytes("b"))]),
    decodes("end of stream between frames", frame(0x81, "a"), [(header(.text, 1), bytes("a"))], endOfStream: true),
    decodes("end of stream before any frame", [], [], endOfStream: true),
    fails("end of stream after the first byte", hex("81"), .unexpectedEndOfStream, endOfStream: true),
    fails("end of stream inside a 64-bit length", hex("82 7f 00 00"), .unexpectedEndOfStream, endOfStream: true),
    fails("end of stream inside a masking key", hex("81 85 37 fa"), .unexpectedEndOfStream, role: .server,
          endOfStream: true),
    fails("end of stream inside a payload", hex("81 05 48 65"), .unexpectedEndOfStream,
          after: [(header(.text, 5), bytes("He"))], endOfStream: true),
]

@Suite struct WebSocketFrameDecoderTests {
    @Test(arguments: frameCases)
    func frames(_ testCase: FrameCase) {
        testCase.check()
    }

    @Test func payloadIsReportedAsItArrivesWithoutWaitingForTheFrame() throws {
        var decoder = WebSocketFrameDecoder(role: .client)
        let head = hex("82 7f 00 00 00 00 01 00 00 00")
        let output = try head.withUnsafeBytes { (bytes) throws(WebSocketError) in try decoder.decode(bytes) }
        #expect(output == .header(header(.binary, 16 * 1024 * 1024), consumed: 10))
        let piece = [UInt8](repeating: 7, count: 1000)
        let range = try piece.withUnsafeBytes { (bytes) throws(WebSocketError) in try decoder.decode(bytes) }
        #expect(range == .payload(0..<1000))
        #expect(decoder.payloadOffset == 1000)
        #expect(throws: WebSocketError.unexpectedEndOfStream) { try decoder.finish() }
    }

    @Test func errorsCarryTheCloseCodesOfRFC6455() {
        let protocolErrors: [WebSocketError] = [
            .reservedBitsSet, .reservedOpcode, .fragmentedControlFrame, .controlFrameTooLong, .unexpectedMask,
            .missingMask, .nonMinimalLength, .invalidLength,
        ]
        #expect(protocolErrors.allSatisfy { $0.closeCode == .protocolError && !$0.isPrematureEnd })
        #expect(WebSocketError.frameTooLarge.closeCode == .messageTooBig)
    }
}
