// How the `websocket-decoder` target reads its input: the first byte is a control byte, the rest is the
// byte stream the peer sends after the handshake.
//
//   bit 0     the reader is a server (the stream holds masked client frames); otherwise a client
//   bit 1     small limits (`WebSocketFuzzInput.smallLimits`), so both size limits are reachable
//   bit 2     permessage-deflate negotiated: RSV1 is legal on a message's first frame, and the message
//             goes through a pass-through inflater (zlib stays out of FWWire and out of this package)
//   bit 3     a close was sent before reading: only the peer's close is awaited
//   bits 4-7  k = 0...15: the split run feeds the stream in two pieces cut at count * k / 15
//
// An empty input is an empty stream with control byte 0.

import FWWire

/// A decoded `websocket-decoder` input: the choices of the control byte and the stream bytes.
public struct WebSocketFuzzInput: Sendable {
    /// The end that reads the stream.
    public var role: WebSocketRole
    /// The limits for this input.
    public var limits: WebSocketLimits
    /// True when permessage-deflate was negotiated.
    public var compression: Bool
    /// True when a close was sent before the first byte was read.
    public var closeFirst: Bool
    /// The bytes the peer sends.
    public var stream: [UInt8]
    /// Where the split run cuts `stream` (0...stream.count).
    public var splitOffset: Int

    /// Limits small enough that libFuzzer reaches each of them with short inputs.
    public static let smallLimits: WebSocketLimits = {
        var limits = WebSocketLimits()
        limits.maxFramePayload = 40
        limits.maxMessageSize = 64
        return limits
    }()

    /// Decodes the control byte and takes the remaining bytes as the stream.
    public init(_ data: UnsafeRawBufferPointer) {
        let control = data.first ?? 0
        role = control & 0b0001 != 0 ? .server : .client
        limits = control & 0b0010 != 0 ? Self.smallLimits : WebSocketLimits()
        compression = control & 0b0100 != 0
        closeFirst = control & 0b1000 != 0
        stream = Array(data.dropFirst())
        splitOffset = stream.count * Int(control >> 4) / 15
    }

    /// Decodes `data` (a convenience for tests and replays).
    public init(_ data: [UInt8]) {
        self = data.withUnsafeBytes { WebSocketFuzzInput($0) }
    }
}

/// An inflater that hands the payload on unchanged in slices of at most three bytes: the state machine's
/// compressed path (sizes counted as output arrives, each slice checked) without zlib.
final class PassThroughInflater: WebSocketMessageInflater {
    func inflate(
        _ compressed: UnsafeRawBufferPointer,
        output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void
    ) throws(WebSocketError) {
        var start = 0
        while start < compressed.count {
            let end = min(start + 3, compressed.count)
            try output(UnsafeRawBufferPointer(rebasing: compressed[start..<end]))
            start = end
        }
    }

    /// Nothing is held back, so nothing remains at the end of a message.
    func finishMessage(output: (UnsafeRawBufferPointer) throws(WebSocketError) -> Void) {}
}
