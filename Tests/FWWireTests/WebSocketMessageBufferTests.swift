// WebSocketMessageBuffer: the size limit before and while bytes arrive, UTF-8 checked per piece, masked
// pieces unmasked at their payload offset.

@testable import FWWire
import Testing

@Suite struct WebSocketMessageBufferTests {
    private func append(_ piece: [UInt8], to message: inout WebSocketMessageBuffer) throws(WebSocketError) {
        try piece.withBytes { (bytes) throws(WebSocketError) in try message.append(bytes) }
    }

    private func buffer(_ opcode: WebSocketOpcode, maxSize: Int = 10) -> WebSocketMessageBuffer {
        WebSocketMessageBuffer(
            header: WebSocketFrameHeader(isFinal: true, opcode: opcode, payloadLength: 0), maxSize: maxSize)
    }

    @Test func framesAndPiecesCountAgainstTheLimit() throws {
        var message = buffer(.binary, maxSize: 10)
        try message.expectFrame(payloadLength: 10)
        try append([UInt8](repeating: 1, count: 6), to: &message)
        #expect(throws: WebSocketError.messageTooBig) { try message.expectFrame(payloadLength: 5) }
        try message.expectFrame(payloadLength: 4)
        #expect(throws: WebSocketError.messageTooBig) {
            try append([UInt8](repeating: 1, count: 5), to: &message)
        }
    }

    @Test func compressedFramesAreCountedOnlyOnceInflated() throws {
        var message = WebSocketMessageBuffer(
            header: WebSocketFrameHeader(isFinal: true, isCompressed: true, opcode: .text, payloadLength: 0),
            maxSize: 2)
        try message.expectFrame(payloadLength: 1000)
        #expect(message.isCompressed && message.isText)
    }

    @Test func maskedTextIsUnmaskedAtItsOffsetThenChecked() throws {
        var message = buffer(.text)
        let key = WebSocketMaskingKey(rawValue: 0x37FA_213D)
        var masked = bytes("Hello")
        masked.withUnsafeMutableBytes { key.apply(to: $0, payloadOffset: 0) }
        try masked[..<2].withUnsafeBytes { try message.append($0, maskingKey: key, payloadOffset: 0) }
        try masked[2...].withUnsafeBytes { try message.append($0, maskingKey: key, payloadOffset: 2) }
        #expect(try message.finish() == .text("Hello"))
    }

    @Test func invalidUTF8FailsInThePieceThatProvesIt() throws {
        var message = buffer(.text)
        try append([0xE2], to: &message)
        #expect(throws: WebSocketError.invalidUTF8) { try message.finish() }
        #expect(throws: WebSocketError.invalidUTF8) {
            try append([0x41], to: &message)
        }
    }

    @Test func binaryIsNotChecked() throws {
        var message = buffer(.binary)
        try append([0xFF, 0xC0], to: &message)
        #expect(try message.finish() == .binary([0xFF, 0xC0]))
    }
}
