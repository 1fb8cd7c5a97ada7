// WebSocketFrameDecoder: RFC 6455 §5.2 frames as a resumable state machine, one state per place a byte
// can be in (the header layout is drawn in WebSocketFrameHeader.swift):
//
//   firstByte ──FIN RSV opcode──▶ lengthByte
//   lengthByte ──MASK, len7 < 126──▶ (length end)
//              ──MASK, 126──▶ extendedLength16(0);  ──MASK, 127──▶ extendedLength64(0)
//   extendedLength16(n) ──byte──▶ extendedLength16(n + 1); the 2nd byte ──▶ (length end)
//   extendedLength64(n) ──byte──▶ extendedLength64(n + 1); the 8th byte ──▶ (length end)
//   (length end): masked ──▶ maskingKey(0);  unmasked ──▶ report `.header` ──▶ payload(length)
//   maskingKey(n) ──byte──▶ maskingKey(n + 1); the 4th byte ──▶ report `.header` ──▶ payload(length)
//   payload(r > 0) ──up to r bytes──▶ report `.payload(range)` ──▶ payload(r - count)
//   payload(0) ──▶ report `.frameEnd` ──▶ firstByte
//
// Checked at the byte that decides them, so an error comes as soon as it is certain: a reserved opcode,
// RSV2/RSV3, RSV1 unless compression was negotiated and the frame starts a message, a control frame
// without FIN (first byte); a mask from a server or none from a client, a control frame over 125 bytes
// (length byte); a 64-bit length with the top bit set (its first byte); a length not in its shortest form,
// a payload over `maxFramePayload` (the last length byte). Payload is reported as ranges of the input as
// it arrives, never copied and never unmasked (the owner unmasks while copying, with the key and the
// offset `payloadOffset`). End of stream is fine between frames and premature inside one.

/// Decodes frames from bytes given in any splits, reporting headers, payload ranges and frame ends.
public struct WebSocketFrameDecoder: Sendable {
    /// What one call to `decode` found.
    public enum Output: Sendable, Hashable {
        /// Every byte given was header; more input is needed.
        case needMoreInput
        /// A frame header ended after `consumed` bytes; its payload follows.
        case header(WebSocketFrameHeader, consumed: Int)
        /// These bytes are payload of the current frame (never empty); everything up to the range's end
        /// is consumed.
        case payload(Range<Int>)
        /// The current frame's payload is complete (consumes nothing).
        case frameEnd
    }

    private enum State {
        case firstByte
        case lengthByte
        case extendedLength16(read: Int)
        case extendedLength64(read: Int)
        case maskingKey(read: Int)
        case payload(remaining: Int)
    }

    private var state = State.firstByte
    /// The header being read, then the header of the frame whose payload is being read.
    private var header = WebSocketFrameHeader(isFinal: true, opcode: .continuation, payloadLength: 0)
    /// While reading a header: the MASK bit, and the length and key bytes read so far.
    private var isMasked = false
    private var accumulator: UInt64 = 0
    /// Payload bytes of the current frame reported so far.
    public private(set) var payloadOffset = 0

    private let role: WebSocketRole
    private let maxFramePayload: Int
    private let allowsCompression: Bool

    /// A decoder for the frames `role`'s peer sends. `allowsCompression` (permessage-deflate was
    /// negotiated) permits RSV1 on the first frame of a message.
    public init(role: WebSocketRole, limits: WebSocketLimits = WebSocketLimits(), allowsCompression: Bool = false) {
        self.role = role
        maxFramePayload = limits.maxFramePayload
        self.allowsCompression = allowsCompression
    }

    // MARK: Input

    /// Decodes from the start of `bytes`, which must begin with the first byte not yet consumed. Returns
    /// `.needMoreInput` only when every byte was consumed (a partial header is kept in the state).
    public mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(WebSocketError) -> Output {
        var index = 0
        while true {
            if case .payload(let remaining) = state {
                guard remaining > 0 else {
                    state = .firstByte
                    return .frameEnd
                }
                guard index < bytes.count else { return .needMoreInput }
                let count = min(remaining, bytes.count - index)
                state = .payload(remaining: remaining - count)
                payloadOffset += count
                return .payload(index..<index + count)
            }
            guard index < bytes.count else { return .needMoreInput }
            let complete = try step(bytes[index])
            index += 1
            if complete {
                state = .payload(remaining: header.payloadLength)
                payloadOffset = 0
                return .header(header, consumed: index)
            }
        }
    }

    /// The stream ended: fine between frames, `unexpectedEndOfStream` inside one.
    public func finish() throws(WebSocketError) {
        guard case .firstByte = state else { throw .unexpectedEndOfStream }
    }

    // MARK: Header bytes

    /// Consumes one header byte; true when it completed the header.
    private mutating func step(_ byte: UInt8) throws(WebSocketError) -> Bool {
        switch state {
        case .firstByte:
            try readFirstByte(byte)
            state = .lengthByte
            return false
        case .lengthByte:
            return try readLengthByte(byte)
        case .extendedLength16(let read):
            accumulator = accumulator << 8 | UInt64(byte)
            guard read == 1 else {
                state = .extendedLength16(read: read + 1)
                return false
            }
            guard accumulator >= 126 else { throw .nonMinimalLength }
            return try lengthComplete()
        case .extendedLength64(let read):
            guard read > 0 || byte & 0x80 == 0 else { throw .invalidLength }
            accumulator = accumulator << 8 | UInt64(byte)
            guard read == 7 else {
                state = .extendedLength64(read: read + 1)
                return false
            }
            guard accumulator > 0xFFFF else { throw .nonMinimalLength }
            return try lengthComplete()
        case .maskingKey(let read):
            accumulator = accumulator << 8 | UInt64(byte)
            guard read == 3 else {
                state = .maskingKey(read: read + 1)
                return false
            }
            header.maskingKey = WebSocketMaskingKey(rawValue: UInt32(truncatingIfNeeded: accumulator))
            return true
        case .payload:
            preconditionFailure("step(_:) in state \(state)")
        }
    }

    /// FIN, RSV1-3 and the opcode.
    private mutating func readFirstByte(_ byte: UInt8) throws(WebSocketError) {
        guard let opcode = WebSocketOpcode(rawValue: byte & 0x0F) else { throw .reservedOpcode }
        let isCompressed = byte & 0x40 != 0
        guard byte & 0x30 == 0 else { throw .reservedBitsSet }
        guard !isCompressed || (allowsCompression && (opcode == .text || opcode == .binary)) else {
            throw .reservedBitsSet
        }
        let isFinal = byte & 0x80 != 0
        guard isFinal || !opcode.isControl else { throw .fragmentedControlFrame }
        header = WebSocketFrameHeader(isFinal: isFinal, isCompressed: isCompressed, opcode: opcode, payloadLength: 0)
    }

    /// MASK and the 7-bit length; true when the header ends here.
    private mutating func readLengthByte(_ byte: UInt8) throws(WebSocketError) -> Bool {
        isMasked = byte & 0x80 != 0
        switch role {
        case .client: guard !isMasked else { throw .unexpectedMask }
        case .server: guard isMasked else { throw .missingMask }
        }
        let length = byte & 0x7F
        guard !header.opcode.isControl || Int(length) <= WebSocketLimits.maxControlPayload else {
            throw .controlFrameTooLong
        }
        accumulator = 0
        switch length {
        case 126:
            state = .extendedLength16(read: 0)
            return false
        case 127:
            state = .extendedLength64(read: 0)
            return false
        default:
            accumulator = UInt64(length)
            return try lengthComplete()
        }
    }

    /// The length in `accumulator` is complete: checks the limit, then reads the key or ends the header.
    private mutating func lengthComplete() throws(WebSocketError) -> Bool {
        guard accumulator <= UInt64(maxFramePayload) else { throw .frameTooLarge }
        header.payloadLength = Int(accumulator)
        guard isMasked else { return true }
        accumulator = 0
        state = .maskingKey(read: 0)
        return false
    }
}
