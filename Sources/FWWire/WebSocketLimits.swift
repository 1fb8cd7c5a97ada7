// Every size a WebSocket connection enforces on what it receives, in one place.

/// Limits on received frames and messages; each exceeded limit is an error with close code 1009, never a
/// truncation.
public struct WebSocketLimits: Sendable, Hashable {
    /// Largest payload of one frame as sent on the wire, compressed or not (16 MiB). Checked when the
    /// frame's length is read, before any payload byte arrives.
    public var maxFramePayload: Int
    /// Largest message, after decompression, summed over its fragments (1 MiB, URLSessionWebSocketTask's
    /// default `maximumMessageSize`). An uncompressed message fails as soon as a frame header announces
    /// more; a compressed one as soon as inflating it produces more.
    public var maxMessageSize: Int

    /// The defaults above.
    public init() {
        maxFramePayload = 16 * 1024 * 1024
        maxMessageSize = 1024 * 1024
    }

    /// The largest payload a control frame may carry (RFC 6455 §5.5); not configurable.
    public static let maxControlPayload = 125
}
