// How a fuzz target reads its input: the first byte is a control byte, the rest is the byte stream that
// the server sends. The control byte chooses the request methods, the limits and where the second run
// splits the stream, so libFuzzer explores those choices together with the bytes.
//
//   bit 0     the first response answers a HEAD request (otherwise GET)
//   bit 1     every later (pipelined) response answers a HEAD request (otherwise GET)
//   bit 2     small limits (`FuzzInput.smallLimits`), so every limit is reachable within -max_len
//   bits 3-7  k = 0...31: the second run feeds the stream in two pieces split at count * k / 31
//
// An empty input is an empty stream with control byte 0.

import FWWire

/// A decoded fuzz input: the choices of the control byte and the stream bytes.
public struct FuzzInput: Sendable {
    /// The method of the request the first response answers.
    public var firstMethod: String
    /// The method of the requests later pipelined responses answer.
    public var laterMethod: String
    /// The parser limits for this input.
    public var limits: HTTPLimits
    /// The bytes the server sends.
    public var stream: [UInt8]
    /// Where the split run cuts `stream` (0...stream.count).
    public var splitOffset: Int

    /// Limits small enough that libFuzzer reaches each of them with short inputs.
    public static let smallLimits: HTTPLimits = {
        var limits = HTTPLimits()
        limits.maxLineLength = 96
        limits.maxHeadSize = 256
        limits.maxHeaderCount = 6
        limits.maxChunkSizeDigits = 4
        limits.maxChunkExtensionLength = 24
        limits.maxTrailerSize = 96
        return limits
    }()

    /// Decodes the control byte and takes the remaining bytes as the stream.
    public init(_ data: UnsafeRawBufferPointer) {
        let control = data.first ?? 0
        firstMethod = control & 0b001 != 0 ? "HEAD" : "GET"
        laterMethod = control & 0b010 != 0 ? "HEAD" : "GET"
        limits = control & 0b100 != 0 ? Self.smallLimits : HTTPLimits()
        stream = Array(data.dropFirst())
        splitOffset = stream.count * Int(control >> 3) / 31
    }

    /// Decodes `data` (a convenience for tests and replays).
    public init(_ data: [UInt8]) {
        self = data.withUnsafeBytes { FuzzInput($0) }
    }
}
