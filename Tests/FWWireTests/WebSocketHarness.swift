// The WebSocket test runner (STYLE.md principle 7): every case is fed four ways (whole, one byte at a
// time, split at every offset, and followed by one more byte) and must produce the same frames or events
// and the same error each way. Cases are written as wire bytes; the helpers build frames by hand (not with
// WebSocketFrameEncoder, which has its own exact-bytes tests).

import FWWire
import Testing

// MARK: - Building wire bytes

/// The bytes of a hexadecimal string; spaces are ignored ("81 05" → [0x81, 0x05]).
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.split(separator: " ").joined())
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
}

/// A frame with first byte `first` (FIN, RSV, opcode) and `payload`, its length in the shortest form;
/// masked with `key` when one is given.
func frame(_ first: UInt8, _ payload: [UInt8], key: UInt32? = nil) -> [UInt8] {
    let mask: UInt8 = key == nil ? 0 : 0x80
    var bytes = [first]
    switch payload.count {
    case 0..<126:
        bytes.append(mask | UInt8(payload.count))
    case 126...0xFFFF:
        bytes += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    default:
        bytes.append(mask | 127)
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> (8 * $0)) }
    }
    guard let key else { return bytes + payload }
    let keyBytes = (0..<4).map { UInt8(truncatingIfNeeded: key >> (24 - 8 * $0)) }
    return bytes + keyBytes + payload.enumerated().map { $0.element ^ keyBytes[$0.offset % 4] }
}

/// A frame whose payload is `text`'s UTF-8.
func frame(_ first: UInt8, _ text: String, key: UInt32? = nil) -> [UInt8] {
    frame(first, bytes(text), key: key)
}

/// A close payload: the code in two bytes, then `reason`.
func closePayload(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
}

// MARK: - Four ways

/// Feeds inputs the four ways.
enum FourWays {
    /// The byte that follows the input in the fourth way: harmless as payload (ASCII), as the first
    /// byte of a frame (a non-final text frame) and as a length byte; it never completes anything.
    static let trailingByte: UInt8 = 0x01

    /// Runs `run` on `input` cut into the chunks of each way and records an issue for each way whose
    /// outcome differs from `expected`. Inputs over 2 KiB are split at a sample of offsets only.
    static func check<Outcome: Equatable & CustomStringConvertible>(
        _ input: [UInt8], expected: Outcome, trailing: Bool, sourceLocation: SourceLocation,
        run: ([[UInt8]]) -> Outcome
    ) {
        let whole = run([input])
        #expect(whole == expected, "fed whole", sourceLocation: sourceLocation)
        let byteByByte = run(input.map { [$0] })
        #expect(byteByByte == expected, "fed byte by byte", sourceLocation: sourceLocation)
        for offset in splitOffsets(input.count) {
            let split = run([Array(input[..<offset]), Array(input[offset...])])
            guard split == expected else {
                Issue.record("split at \(offset): \(split)", sourceLocation: sourceLocation)
                break
            }
        }
        guard trailing else { return }
        let followed = run([input + [trailingByte]])
        #expect(followed == expected, "followed by one more byte", sourceLocation: sourceLocation)
    }

    /// Every offset of a small input; the first and last 64 and every 997th of a large one.
    private static func splitOffsets(_ count: Int) -> [Int] {
        guard count > 2048 else { return Array(0...count) }
        return Array(0..<64) + Array(stride(from: 64, to: count - 64, by: 997)) + Array(count - 64...count)
    }
}

// MARK: - Frame decoder cases

/// A frame as the decoder reports it, the payload unmasked and joined.
struct DecodedFrame: Equatable, CustomStringConvertible {
    var header: WebSocketFrameHeader
    var payload: [UInt8]

    var description: String {
        "\(header.opcode)(fin \(header.isFinal), rsv1 \(header.isCompressed), \(payload.count) bytes)"
    }
}

/// One frame-decoder case: bytes from the peer and the frames or the error they must produce.
struct FrameCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: [UInt8]
    var role: WebSocketRole = .client
    var limits = WebSocketLimits()
    var allowsCompression = false
    var endOfStream = false
    /// The frames expected, as (header, unmasked payload).
    var frames: [(WebSocketFrameHeader, [UInt8])]
    var error: WebSocketError?

    var testDescription: String {
        name
    }
}

/// What one frame-decoder run produced.
struct FrameOutcome: Equatable, CustomStringConvertible {
    var frames: [DecodedFrame] = []
    var error: WebSocketError?

    var description: String {
        "frames \(frames), error \(error.map(String.init(describing:)) ?? "none")"
    }
}

extension FrameCase {
    /// Runs the case the four ways.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = FrameOutcome(
            frames: frames.map { DecodedFrame(header: $0.0, payload: $0.1) }, error: error)
        FourWays.check(
            input, expected: expected, trailing: !endOfStream, sourceLocation: sourceLocation, run: run)
    }

    /// Feeds `chunks` to a fresh decoder (then end of stream when the case says so).
    func run(_ chunks: [[UInt8]]) -> FrameOutcome {
        var decoder = WebSocketFrameDecoder(role: role, limits: limits, allowsCompression: allowsCompression)
        var outcome = FrameOutcome()
        do throws(WebSocketError) {
            for chunk in chunks {
                var failure: WebSocketError?
                chunk.withUnsafeBytes { bytes in
                    do throws(WebSocketError) {
                        try Self.decodeAll(bytes, &decoder, into: &outcome)
                    } catch {
                        failure = error
                    }
                }
                if let failure {
                    throw failure
                }
            }
            if endOfStream {
                try decoder.finish()
            }
        } catch {
            outcome.error = error
        }
        return outcome
    }

    private static func decodeAll(
        _ bytes: UnsafeRawBufferPointer, _ decoder: inout WebSocketFrameDecoder, into outcome: inout FrameOutcome
    ) throws(WebSocketError) {
        var index = 0
        while true {
            switch try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[index...])) {
            case .needMoreInput:
                return
            case .header(let header, let consumed):
                outcome.frames.append(DecodedFrame(header: header, payload: []))
                index += consumed
            case .payload(let range):
                var piece = Array(bytes[index + range.lowerBound..<index + range.upperBound])
                let offset = decoder.payloadOffset - range.count
                let key = outcome.frames.last?.header.maskingKey
                piece.withUnsafeMutableBytes { key?.apply(to: $0, payloadOffset: offset) }
                outcome.frames[outcome.frames.count - 1].payload += piece
                index += range.upperBound
            case .frameEnd:
                #expect(outcome.frames.last?.payload.count == outcome.frames.last?.header.payloadLength)
            }
        }
    }
}

// MARK: - Connection cases

/// One connection case: bytes from the peer and the events or the error they must produce.
struct ConnectionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: [UInt8]
    var role: WebSocketRole = .client
    var limits = WebSocketLimits()
    var endOfStream = false
    /// Reads with a PassThroughInflater, so RSV1 marks a "compressed" message.
    var compression = false
    /// Sends a close before reading: only the peer's close is awaited.
    var closeFirst = false
    var events: [WebSocketEvent]
    var error: WebSocketError?
    /// The close code the error must carry (stated separately so each row names it).
    var closeCode: WebSocketCloseCode?

    var testDescription: String {
        name
    }

    /// Runs the case the four ways, and checks the error's close code.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.closeCode == closeCode, "the row's close code", sourceLocation: sourceLocation)
        FourWays.check(
            input, expected: ConnectionOutcome(events: events, error: error), trailing: !endOfStream,
            sourceLocation: sourceLocation, run: run)
    }

    /// Feeds `chunks` to a fresh state machine, pulling every event after each feed.
    func run(_ chunks: [[UInt8]]) -> ConnectionOutcome {
        var machine = WebSocketConnectionStateMachine(
            role: role, limits: limits, inflater: compression ? PassThroughInflater() : nil)
        if closeFirst {
            _ = machine.close(WebSocketCloseFrame(code: .normalClosure))
        }
        var outcome = ConnectionOutcome()
        for chunk in chunks {
            machine.feed(chunk)
            guard ConnectionOutcome.drain(&machine, into: &outcome) else { return outcome }
        }
        if endOfStream {
            machine.feedEndOfStream()
            _ = ConnectionOutcome.drain(&machine, into: &outcome)
        }
        return outcome
    }
}

/// What one connection run produced.
struct ConnectionOutcome: Equatable, CustomStringConvertible {
    var events: [WebSocketEvent] = []
    var error: WebSocketError?

    var description: String {
        "events \(events), error \(error.map(String.init(describing:)) ?? "none")"
    }

    /// Pulls events until the machine needs input; false after an error (checked to be sticky).
    static func drain(
        _ machine: inout WebSocketConnectionStateMachine, into outcome: inout ConnectionOutcome
    ) -> Bool {
        for _ in 0..<100_000 {
            do {
                guard let event = try machine.next() else { return true }
                outcome.events.append(event)
            } catch {
                outcome.error = error
                #expect(throws: error, "errors are sticky") { try machine.next() }
                return false
            }
        }
        Issue.record("the state machine kept producing events")
        return false
    }
}

// MARK: - Pass-through inflater

/// An "inflater" that hands the payload on unchanged in slices of at most three bytes, so the state
/// machine's compressed path (sizes counted as output arrives, slices checked one by one) runs without
/// zlib.
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
