// What a WebSocket connection reports to its owner, in the order the peer's frames arrived.

/// What the peer sent, as the connection state machine reports it.
public enum WebSocketEvent: Sendable, Hashable {
    /// A complete text message, checked to be UTF-8 (decompressed when it was compressed).
    case text(String)
    /// A complete binary message (decompressed when it was compressed).
    case binary([UInt8])
    /// A ping: write a pong carrying exactly these bytes (RFC 6455 §5.5.2), before any later pong.
    case ping([UInt8])
    /// A pong (an answer to a ping, or unsolicited: RFC 6455 §5.5.3).
    case pong([UInt8])
    /// The peer's close frame. When no close was sent yet, `close(_:)` returns the echo to write next;
    /// either way nothing more is read.
    case closeReceived(WebSocketCloseFrame)
}
