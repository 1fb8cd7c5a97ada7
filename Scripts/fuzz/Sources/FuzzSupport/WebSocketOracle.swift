// A second, deliberately plain reading of a WebSocket stream to compare FWWire's state machine against: the
// whole stream at once, frame after frame, every rule of RFC 6455 restated from the RFC rather than
// borrowed from FWWire (its UTF-8 check is the standard library's), each checked at the byte that decides
// it, as FWWire promises:
//
// - first byte: opcode defined, RSV2/RSV3 clear, RSV1 only with compression on a message's first frame,
//   FIN on control frames; length byte: masked exactly when a client sent it, control length ≤ 125;
//   extended length: top bit clear (at its first byte), shortest form, within the frame limit;
// - at the header: a new message only when none is open, a continuation only when one is; an
//   uncompressed message's size announced by its headers within the message limit;
// - payload as far as the stream goes: text must stay a prefix of UTF-8; a compressed message (the
//   pass-through "inflater": its payload is its content) fails at its earliest bad byte, UTF-8 or size;
// - frame end: ping, pong, a complete message, or the close (payload empty or a valid code and UTF-8),
//   after which nothing is read;
// - a close sent first: data, pings and pongs are framed and ordered but dropped unchecked;
// - the stream ends (always, at its end): fine after the peer's close, `unexpectedEndOfStream` otherwise.

import FWWire

/// The whole-stream reference reading.
struct WebSocketOracle {
    let role: WebSocketRole
    let limits: WebSocketLimits
    let compression: Bool
    let closeFirst: Bool

    /// One message in progress.
    private struct Message {
        var isText: Bool
        var isCompressed: Bool
        var bytes: [UInt8] = []
        /// Where the last, possibly incomplete, scalar starts (everything before it is valid UTF-8).
        var checkedUpTo = 0
    }

    /// What the reference reading of `stream`, followed by end of stream, reports.
    func read(_ stream: [UInt8]) -> WebSocketTrace {
        var trace = WebSocketTrace()
        var reader = Reader(oracle: self, stream: stream)
        do throws(WebSocketError) {
            while try reader.frame(into: &trace.events) {}
        } catch {
            trace.error = error
        }
        return trace
    }

    /// The reading position and the message in progress.
    private struct Reader {
        let oracle: WebSocketOracle
        let stream: [UInt8]
        var index = 0
        var message: Message?

        /// Reads one frame; false after the peer's close.
        mutating func frame(into events: inout [WebSocketEvent]) throws(WebSocketError) -> Bool {
            guard index < stream.count else { throw .unexpectedEndOfStream }
            let first = stream[index]
            let opcode = first & 0x0F
            let isControl = opcode >= 8
            guard [0, 1, 2, 8, 9, 10].contains(opcode) else { throw .reservedOpcode }
            guard first & 0x30 == 0 else { throw .reservedBitsSet }
            let isCompressed = first & 0x40 != 0
            guard !isCompressed || (oracle.compression && (opcode == 1 || opcode == 2)) else { throw .reservedBitsSet }
            guard first & 0x80 != 0 || !isControl else { throw .fragmentedControlFrame }
            let (length, key) = try lengthAndKey(isControl: isControl)
            if !isControl {
                try startFrame(opcode: opcode, isCompressed: isCompressed, length: length)
            }
            let available = min(length, stream.count - index)
            var payload = Array(stream[index..<index + available])
            if let key {
                payload = payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
            }
            index += available
            if !isControl, !oracle.closeFirst {
                try append(payload)
            }
            guard available == length else { throw .unexpectedEndOfStream }
            return try endFrame(opcode: opcode, isFinal: first & 0x80 != 0, payload: payload, into: &events)
        }

        /// The length byte, the extended length and the masking key.
        private mutating func lengthAndKey(isControl: Bool) throws(WebSocketError) -> (Int, [UInt8]?) {
            guard index + 1 < stream.count else { throw .unexpectedEndOfStream }
            let second = stream[index + 1]
            let masked = second & 0x80 != 0
            guard oracle.role == .server || !masked else { throw .unexpectedMask }
            guard oracle.role == .client || masked else { throw .missingMask }
            var length = UInt64(second & 0x7F)
            guard !isControl || length <= 125 else { throw .controlFrameTooLong }
            index += 2
            if length == 126 {
                length = try bigEndian(2)
                guard length >= 126 else { throw .nonMinimalLength }
            } else if length == 127 {
                guard index >= stream.count || stream[index] & 0x80 == 0 else { throw .invalidLength }
                length = try bigEndian(8)
                guard length > 0xFFFF else { throw .nonMinimalLength }
            }
            guard length <= UInt64(oracle.limits.maxFramePayload) else { throw .frameTooLarge }
            guard masked else { return (Int(length), nil) }
            guard index + 4 <= stream.count else { throw .unexpectedEndOfStream }
            defer { index += 4 }
            return (Int(length), Array(stream[index..<index + 4]))
        }

        private mutating func bigEndian(_ count: Int) throws(WebSocketError) -> UInt64 {
            guard index + count <= stream.count else { throw .unexpectedEndOfStream }
            defer { index += count }
            return stream[index..<index + count].reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// The message-sequence rules and the announced size of a data frame.
        private mutating func startFrame(opcode: UInt8, isCompressed: Bool, length: Int) throws(WebSocketError) {
            if opcode == 0 {
                guard message != nil else { throw .unexpectedContinuation }
            } else {
                guard message == nil else { throw .expectedContinuation }
                message = Message(isText: opcode == 1, isCompressed: isCompressed)
            }
            guard !oracle.closeFirst, let message, !message.isCompressed else { return }
            guard message.bytes.count + length <= oracle.limits.maxMessageSize else { throw .messageTooBig }
        }

        /// Adds payload to the open message: UTF-8 up to the limit first, then the size.
        private mutating func append(_ payload: [UInt8]) throws(WebSocketError) {
            guard var current = message else { return }
            message = nil
            let room = oracle.limits.maxMessageSize - current.bytes.count
            current.bytes += payload.prefix(room)
            if current.isText {
                guard let boundary = WebSocketOracle.validPrefix(current.bytes, from: current.checkedUpTo) else {
                    throw .invalidUTF8
                }
                current.checkedUpTo = boundary
            }
            message = current
            guard payload.count <= room else { throw .messageTooBig }
        }

        /// Reports what a complete frame means; false after the peer's close.
        private mutating func endFrame(
            opcode: UInt8, isFinal: Bool, payload: [UInt8], into events: inout [WebSocketEvent]
        ) throws(WebSocketError) -> Bool {
            switch opcode {
            case 8:
                events.append(.closeReceived(try WebSocketOracle.closeFrame(payload)))
                return false
            case 9, 10:
                if !oracle.closeFirst {
                    events.append(opcode == 9 ? .ping(payload) : .pong(payload))
                }
            default:
                guard isFinal, let finished = message else { return true }
                message = nil
                guard !oracle.closeFirst else { return true }
                guard finished.isText else {
                    events.append(.binary(finished.bytes))
                    return true
                }
                guard let text = String(validating: finished.bytes, as: UTF8.self) else { throw .invalidUTF8 }
                events.append(.text(text))
            }
            return true
        }
    }

    // MARK: Rules restated

    /// The close a payload carries: empty, or a code 1000-1003, 1007-1014 or 3000-4999 and UTF-8.
    static func closeFrame(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketCloseFrame {
        guard !payload.isEmpty else { return WebSocketCloseFrame(code: nil) }
        guard payload.count >= 2 else { throw .invalidClosePayload }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code) else {
            throw .invalidCloseCode
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { throw .invalidCloseReason }
        return WebSocketCloseFrame(code: WebSocketCloseCode(rawValue: code), reason: reason)
    }

    /// Continuation bytes at every edge of the ranges a scalar's continuations may take.
    private static let continuationEdges: [UInt8] = [0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF]

    /// When `bytes` (valid UTF-8 before `start`, a scalar boundary) can still become valid UTF-8: where its
    /// last, possibly incomplete, scalar starts; nil when no continuation can make it valid.
    static func validPrefix(_ bytes: [UInt8], from start: Int) -> Int? {
        for cut in stride(from: bytes.count, through: max(start, bytes.count - 3), by: -1) {
            guard String(validating: bytes[start..<cut], as: UTF8.self) != nil else { continue }
            return canComplete(Array(bytes[cut...])) ? cut : nil
        }
        return nil
    }

    /// True when `tail` (at most three bytes) is empty or some continuation bytes complete it into one
    /// valid scalar.
    private static func canComplete(_ tail: [UInt8]) -> Bool {
        guard !tail.isEmpty else { return true }
        var candidates: [[UInt8]] = [tail]
        for _ in tail.count..<4 {
            candidates = candidates.flatMap { prefix in continuationEdges.map { prefix + [$0] } }
            if candidates.contains(where: { String(validating: $0, as: UTF8.self) != nil }) {
                return true
            }
        }
        return false
    }
}
