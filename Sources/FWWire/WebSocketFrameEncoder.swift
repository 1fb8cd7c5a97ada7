// Writing frames (RFC 6455 §5.2-5.7): a header with the shortest length form, then the payload, masked
// in place in the output with a fresh key per frame when the writer is a client. Messages split into
// frames of a chosen size; control frames check the 125-byte limit; close frames carry a code and as much
// of the reason as fits.

/// Appends frames to a byte buffer.
///
/// Clients take a fresh masking key for every frame from `maskingKeys`, which must be a CSPRNG outside
/// tests (RFC 6455 §10.3: keys must not be predictable); the default is the standard library's
/// `SystemRandomNumberGenerator`. Servers send unmasked frames and never use it.
public struct WebSocketFrameEncoder<KeyGenerator: RandomNumberGenerator> {
    private let role: WebSocketRole
    private var maskingKeys: KeyGenerator

    /// An encoder for frames sent by `role`, drawing masking keys from `maskingKeys`.
    public init(role: WebSocketRole, maskingKeys: KeyGenerator) {
        self.role = role
        self.maskingKeys = maskingKeys
    }

    // MARK: Messages

    /// Appends a text or binary message as frames of at most `maxFramePayload` bytes (one frame when
    /// nil): the first frame carries `opcode` (and RSV1 when `isCompressed`: the payload was compressed
    /// with permessage-deflate), the others are continuations, the last has FIN. An empty message is one
    /// empty frame.
    public mutating func encodeMessage(
        _ opcode: WebSocketOpcode,
        payload: UnsafeRawBufferPointer,
        isCompressed: Bool = false,
        maxFramePayload: Int? = nil,
        into output: inout [UInt8]
    ) {
        precondition(opcode == .text || opcode == .binary, "encodeMessage(_:) with opcode \(opcode)")
        precondition((maxFramePayload ?? 1) > 0, "encodeMessage(_:) with maxFramePayload \(maxFramePayload ?? 0)")
        let size = maxFramePayload ?? max(payload.count, 1)
        var start = 0
        repeat {
            let end = payload.count - start > size ? start + size : payload.count
            let header = WebSocketFrameHeader(
                isFinal: end == payload.count, isCompressed: isCompressed && start == 0,
                opcode: start == 0 ? opcode : .continuation, payloadLength: end - start)
            encodeFrame(header, payload: UnsafeRawBufferPointer(rebasing: payload[start..<end]), into: &output)
            start = end
        } while start < payload.count
    }

    /// Appends a text message (its UTF-8) as `encodeMessage` does.
    public mutating func encodeText(_ text: String, maxFramePayload: Int? = nil, into output: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            encodeMessage(.text, payload: UnsafeRawBufferPointer(utf8), maxFramePayload: maxFramePayload, into: &output)
        }
    }

    // MARK: Control frames

    /// Appends a ping. Precondition: at most 125 payload bytes.
    public mutating func encodePing(_ payload: [UInt8], into output: inout [UInt8]) {
        encodeControl(.ping, payload, into: &output)
    }

    /// Appends a pong (the answer to a ping carries the ping's payload). Precondition: at most 125 bytes.
    public mutating func encodePong(_ payload: [UInt8], into output: inout [UInt8]) {
        encodeControl(.pong, payload, into: &output)
    }

    /// Appends a close frame: empty without a code (or with 1005, 1006 or 1015, which are never sent),
    /// else the code and the reason truncated to 123 bytes at a Unicode scalar boundary.
    public mutating func encodeClose(_ frame: WebSocketCloseFrame, into output: inout [UInt8]) {
        encodeControl(.close, frame.payload, into: &output)
    }

    private mutating func encodeControl(_ opcode: WebSocketOpcode, _ payload: [UInt8], into output: inout [UInt8]) {
        precondition(
            payload.count <= WebSocketLimits.maxControlPayload,
            "\(opcode) payload of \(payload.count) bytes (at most 125)")
        payload.withUnsafeBytes { bytes in
            encodeFrame(
                WebSocketFrameHeader(isFinal: true, opcode: opcode, payloadLength: bytes.count), payload: bytes,
                into: &output)
        }
    }

    // MARK: Frames

    /// Appends one frame: `header` (its masking key replaced by a fresh one for a client, removed for a
    /// server) and `payload`, masked in place in `output`. Precondition: `header.payloadLength` is
    /// `payload.count`.
    public mutating func encodeFrame(
        _ header: WebSocketFrameHeader,
        payload: UnsafeRawBufferPointer,
        into output: inout [UInt8]
    ) {
        precondition(header.payloadLength == payload.count, "frame header length \(header.payloadLength) "
            + "for \(payload.count) payload bytes")
        var header = header
        header.maskingKey = role == .client ? WebSocketMaskingKey(rawValue: maskingKeys.next()) : nil
        output.reserveCapacity(output.count + Self.headerLength(header) + payload.count)
        Self.appendHeader(header, to: &output)
        let start = output.count
        output.append(contentsOf: payload)
        if let key = header.maskingKey {
            output.withUnsafeMutableBytes { storage in
                key.apply(to: UnsafeMutableRawBufferPointer(rebasing: storage[start...]), payloadOffset: 0)
            }
        }
    }

    /// The header's size on the wire: 2 bytes, plus 2 or 8 for a long length, plus 4 for a key.
    public static func headerLength(_ header: WebSocketFrameHeader) -> Int {
        let length = header.payloadLength < 126 ? 0 : header.payloadLength <= 0xFFFF ? 2 : 8
        return 2 + length + (header.maskingKey == nil ? 0 : 4)
    }

    /// Appends `header` in its shortest form (RFC 6455 §5.2: "the minimal number of bytes MUST be used").
    private static func appendHeader(_ header: WebSocketFrameHeader, to output: inout [UInt8]) {
        var first = header.opcode.rawValue
        if header.isFinal {
            first |= 0x80
        }
        if header.isCompressed {
            first |= 0x40
        }
        output.append(first)
        let mask: UInt8 = header.maskingKey == nil ? 0 : 0x80
        let length = UInt64(header.payloadLength)
        switch length {
        case 0..<126:
            output.append(mask | UInt8(length))
        case 126...0xFFFF:
            output.append(mask | 126)
            appendBigEndian(length, byteCount: 2, to: &output)
        default:
            output.append(mask | 127)
            appendBigEndian(length, byteCount: 8, to: &output)
        }
        if let key = header.maskingKey {
            appendBigEndian(UInt64(key.rawValue), byteCount: 4, to: &output)
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to output: inout [UInt8]) {
        for index in (0..<byteCount).reversed() {
            output.append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }
}

extension WebSocketFrameEncoder where KeyGenerator == SystemRandomNumberGenerator {
    /// An encoder for frames sent by `role`; a client's masking keys come from the system CSPRNG.
    public init(role: WebSocketRole) {
        self.init(role: role, maskingKeys: SystemRandomNumberGenerator())
    }
}

extension WebSocketFrameEncoder: Sendable where KeyGenerator: Sendable {}
