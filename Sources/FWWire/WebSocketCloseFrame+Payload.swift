// The payload of a close frame (RFC 6455 §5.5.1): empty, or a 2-byte big-endian code and a UTF-8 reason.

extension WebSocketCloseFrame {
    /// The most reason bytes a close frame can carry: 125 payload bytes minus the code.
    public static let maxReasonLength = WebSocketLimits.maxControlPayload - 2

    /// The close frame a received payload holds: empty (no code), or a code valid in a close frame
    /// followed by UTF-8. One byte is `invalidClosePayload`, a code that may not be sent
    /// `invalidCloseCode`, a reason that is not UTF-8 `invalidCloseReason`.
    init(payload: [UInt8]) throws(WebSocketError) {
        guard !payload.isEmpty else {
            self.init(code: nil)
            return
        }
        guard payload.count >= 2 else { throw .invalidClosePayload }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidInCloseFrame else { throw .invalidCloseCode }
        var validator = WebSocketUTF8Validator()
        let valid = payload.withUnsafeBytes { validator.validate($0.suffix(from: 2)) }
        guard valid, validator.isComplete else { throw .invalidCloseReason }
        self.init(code: code, reason: String(decoding: payload[2...], as: UTF8.self))
    }

    /// The payload to send: empty without a code (or with one that may not be sent: 1005, 1006 and 1015
    /// mean "no code" and are never written), else the code and as much of the reason as fits in
    /// `maxReasonLength` bytes without splitting a Unicode scalar.
    var payload: [UInt8] {
        guard let code, code.isValidInCloseFrame else { return [] }
        let reason = Array(reason.utf8)
        var cut = min(reason.count, Self.maxReasonLength)
        while cut < reason.count, reason[cut] & 0xC0 == 0x80 {
            cut -= 1
        }
        var bytes = [UInt8(truncatingIfNeeded: code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
        bytes += reason[..<cut]
        return bytes
    }
}
