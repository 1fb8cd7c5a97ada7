// MARK: - Base64

/// RFC 4648 base64 with padding: SPKI pins ("sha256//BASE64"), and header fields of the layers above that
/// cannot use Foundation (the WebSocket handshake).
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The padded base64 text of `bytes`.
    public static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            text.append(alphabet[Int(group >> 18 & 0x3F)])
            text.append(alphabet[Int(group >> 12 & 0x3F)])
            text.append(remaining > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            text.append(remaining > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of padded base64 text, or nil when it is not canonical padded base64.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 4 * 3)
        var offset = 0
        while offset < characters.count {
            let isLast = offset + 4 == characters.count
            var values: [UInt32] = []
            var padding = 0
            for character in characters[offset..<offset + 4] {
                if character == UInt8(ascii: "=") {
                    padding += 1
                    continue
                }
                guard padding == 0, let value = sextet(character) else { return nil }
                values.append(value)
            }
            guard padding == 0 || (isLast && padding <= 2) else { return nil }
            let group = values.enumerated().reduce(UInt32(0)) { $0 | $1.element << (18 - 6 * UInt32($1.offset)) }
            bytes.append(UInt8(group >> 16 & 0xFF))
            if padding < 2 { bytes.append(UInt8(group >> 8 & 0xFF)) }
            if padding < 1 { bytes.append(UInt8(group & 0xFF)) }
            offset += 4
        }
        return bytes
    }

    private static func sextet(_ character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
