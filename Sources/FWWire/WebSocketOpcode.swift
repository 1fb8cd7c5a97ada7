// The frame opcodes of RFC 6455 §5.2 and the two roles an endpoint can play.

// MARK: - Opcode

/// A frame's opcode (RFC 6455 §5.2): only the six the protocol defines exist as values; the reserved
/// ones (3-7, 0xB-0xF) are a decoding error.
public struct WebSocketOpcode: Sendable, Hashable, CustomStringConvertible {
    /// The 4-bit value on the wire.
    public let rawValue: UInt8

    private init(_ rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The opcode for a defined 4-bit value, or nil for a reserved one (or a value above 15).
    public init?(rawValue: UInt8) {
        switch rawValue {
        case 0x0, 0x1, 0x2, 0x8, 0x9, 0xA: self.init(rawValue)
        default: return nil
        }
    }

    /// 0x0: a later fragment of the message in progress.
    public static let continuation = WebSocketOpcode(0x0)
    /// 0x1: the first frame of a text message (UTF-8).
    public static let text = WebSocketOpcode(0x1)
    /// 0x2: the first frame of a binary message.
    public static let binary = WebSocketOpcode(0x2)
    /// 0x8: a close frame (RFC 6455 §5.5.1).
    public static let close = WebSocketOpcode(0x8)
    /// 0x9: a ping (RFC 6455 §5.5.2).
    public static let ping = WebSocketOpcode(0x9)
    /// 0xA: a pong (RFC 6455 §5.5.3).
    public static let pong = WebSocketOpcode(0xA)

    /// True for close, ping and pong (the opcodes with the high bit set): at most 125 payload bytes,
    /// never fragmented, allowed between the fragments of a message.
    public var isControl: Bool {
        rawValue & 0x8 != 0
    }

    /// The opcode's name in RFC 6455.
    public var description: String {
        switch rawValue {
        case 0x0: "continuation"
        case 0x1: "text"
        case 0x2: "binary"
        case 0x8: "close"
        case 0x9: "ping"
        default: "pong"
        }
    }
}

// MARK: - Role

/// Which end of a WebSocket connection an endpoint is (RFC 6455 §5.1): clients mask every frame they
/// send and reject masked frames; servers require masks and send none.
public enum WebSocketRole: Sendable, Hashable {
    /// The end that opened the connection with the HTTP handshake.
    case client
    /// The end that answered the handshake with 101.
    case server
}
