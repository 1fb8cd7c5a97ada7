// A frame header (RFC 6455 §5.2) and the masking key of §5.3:
//
//    0                   1                   2                   3
//   +-+-+-+-+-------+-+-------------+-------------------------------+
//   |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
//   |I|S|S|S|  (4)  |A|     (7)     |            (16/64)            |
//   |N|V|V|V|       |S|             |  (if payload len==126/127)    |
//   | |1|2|3|       |K|             |                               |
//   +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
//   |  Extended payload length continued, if payload len == 127     |
//   + - - - - - - - - - - - - - - - +-------------------------------+
//   |                               | Masking-key, if MASK set to 1 |
//   +-------------------------------+-------------------------------+
//   | Masking-key (continued)       |          Payload Data         |
//   +-------------------------------- - - - - - - - - - - - - - - - +

// MARK: - Frame header

/// What a frame header says. RSV2 and RSV3 have no field: no extension we support defines them, so a
/// frame with either set never decodes.
public struct WebSocketFrameHeader: Sendable, Hashable {
    /// FIN: this frame ends its message (always true for control frames).
    public var isFinal: Bool
    /// RSV1: with permessage-deflate, the message this frame starts is compressed.
    public var isCompressed: Bool
    /// The opcode.
    public var opcode: WebSocketOpcode
    /// The number of payload bytes that follow the header.
    public var payloadLength: Int
    /// The masking key: present on every frame a client sends, absent on every frame a server sends.
    public var maskingKey: WebSocketMaskingKey?

    /// A header from its fields.
    public init(
        isFinal: Bool, isCompressed: Bool = false, opcode: WebSocketOpcode, payloadLength: Int,
        maskingKey: WebSocketMaskingKey? = nil
    ) {
        self.isFinal = isFinal
        self.isCompressed = isCompressed
        self.opcode = opcode
        self.payloadLength = payloadLength
        self.maskingKey = maskingKey
    }
}

// MARK: - Masking key

/// The 32-bit key a client XORs its payload with (RFC 6455 §5.3): payload byte i is XORed with key
/// byte i mod 4.
public struct WebSocketMaskingKey: Sendable, Hashable, CustomStringConvertible {
    /// The four key bytes as one number, the first byte on the wire the most significant.
    public let rawValue: UInt32

    /// The key whose wire bytes are `rawValue` in big-endian order.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The key byte that masks payload byte `offset`.
    @inline(__always)
    func byte(at offset: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * (offset & 3)))
    }

    /// XORs `bytes` with the key in place, where `bytes` starts `payloadOffset` bytes into the payload
    /// (masking and unmasking are the same operation). Eight bytes at a time; no allocation.
    public func apply(to bytes: UnsafeMutableRawBufferPointer, payloadOffset: Int) {
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { word in
            for index in 0..<8 {
                word[index] = byte(at: payloadOffset + index)
            }
        }
        var index = 0
        while bytes.count - index >= 8 {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            bytes.storeBytes(of: word ^ pattern, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            bytes[index] ^= byte(at: payloadOffset + index)
            index += 1
        }
    }

    /// The key as eight hexadecimal digits.
    public var description: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
