import FWWire

// MARK: - RequestBodyStateMachine
//
// Sends one request body after its head, a piece at a time and never ahead of the socket, as a pure
// value type. The owner (`HTTP1Connection`) asks for the next piece (`nextPiece`) whenever its write
// queue is empty, feeds in the producer's answers, and runs the returned actions.
//
//   waitingForContinue ──continueReceived (a 100, or the wait timed out)──▶ ready
//   ready ──nextPiece, in memory──▶ ready (a slice to write), or complete after the last slice
//   ready ──nextPiece, stream──▶ producing ──produced──▶ ready (the piece, framed, to write)
//                                    ├──finished──▶ complete (the last chunk, when chunked)
//                                    └──failed, or the producer broke the contract──▶ stopped
//   any state ──stop (a final response came, or the request ended)──▶ complete when every body byte
//                                    was handed out, else stopped
//
// In-memory bodies go out in slices of `pieceSize` so the socket, not the body's size, bounds what is
// queued (and progress can be reported as slices leave). A stream of declared length is framed by
// Content-Length: a piece that would go past the length, or an end before it, fails the body before a
// byte of it is queued, so a mis-framed request never reaches the wire. Once the declared length was
// handed out the request is fully framed (`isComplete`) even though the producer is still asked for
// its end, to catch a stream longer than declared; a response that comes first makes that check moot.
// A stream of unknown length is framed as chunks (hex size CRLF data CRLF), then the last chunk
// "0 CRLF CRLF". At most one `produce` is outstanding, asking for at most `pieceSize` bytes (never more
// than a declared length still needs).
// A broken producer (an empty piece, a piece larger than asked) is a local error: the body fails.

/// The state machine of one request body.
struct RequestBodyStateMachine {
    /// What the owner must do.
    enum Action: Equatable {
        case none
        /// Queue `bytes` (framing included); `payload` of them are body bytes.
        case write([UInt8], payload: Int)
        /// Ask the producer for up to `maxLength` bytes.
        case produce(maxLength: Int)
        /// The body is complete: queue `bytes` (the last chunk, or nothing) and stop the producer.
        case finish([UInt8])
        /// The body cannot be sent: stop the producer and fail the request with `reason`.
        case fail(String)
    }

    /// Where the bytes come from and how far along they are.
    private enum Source {
        /// An in-memory body and the offset of its next slice.
        case memory([UInt8], offset: Int)
        /// A producer's body: the declared length (nil: chunked) and the body bytes accepted so far.
        case stream(length: Int64?, sent: Int64)
    }

    private enum State {
        case waitingForContinue(Source)
        case ready(Source)
        case producing(length: Int64?, sent: Int64, asked: Int)
        case complete
        case stopped
    }

    /// The largest slice or piece queued at once (64 KiB).
    static let pieceSize = 64 * 1024

    private var state: State

    /// A machine for `body` (nil: no body, complete at once); `waitsForContinue` holds the body until
    /// `continueReceived()`.
    init(body: TransportRequestBody?, waitsForContinue: Bool) {
        let source: Source
        switch body {
        case .none:
            state = .complete
            return
        case .bytes(let bytes):
            guard !bytes.isEmpty else {
                state = .complete
                return
            }
            source = .memory(bytes, offset: 0)
        case .stream(let stream):
            source = .stream(length: stream.length, sent: 0)
        }
        state = waitsForContinue ? .waitingForContinue(source) : .ready(source)
    }

    /// Whether `nextPiece()` has something to hand out (a piece to write, or a piece to ask for).
    var hasPieceReady: Bool {
        if case .ready = state { return true }
        return false
    }

    /// True once every body byte (and the last chunk) was handed out for writing: the request is fully
    /// framed once they are written (a stream of declared length may still owe its end).
    var isComplete: Bool {
        switch state {
        case .complete:
            return true
        case .ready(.stream(let length?, let sent)), .producing(let length?, let sent, _):
            return sent == length
        case .waitingForContinue, .ready, .producing, .stopped:
            return false
        }
    }

    // MARK: Inputs

    /// `100 Continue` arrived or the wait for it timed out: the body may go. Ignored in other states (a
    /// server may send a 100 nobody asked for).
    mutating func continueReceived() {
        guard case .waitingForContinue(let source) = state else { return }
        state = .ready(source)
    }

    /// The write queue is empty: the next slice to write, a piece to ask the producer for, or nothing.
    mutating func nextPiece() -> Action {
        switch state {
        case .waitingForContinue, .producing, .complete, .stopped:
            return .none
        case .ready(.memory(let bytes, let offset)):
            let end = min(bytes.count, offset + Self.pieceSize)
            let slice = offset == 0 && end == bytes.count ? bytes : Array(bytes[offset..<end])
            state = end == bytes.count ? .complete : .ready(.memory(bytes, offset: end))
            return .write(slice, payload: slice.count)
        case .ready(.stream(let length, let sent)):
            var asked = Self.pieceSize
            if let length, length > sent { asked = Int(min(Int64(asked), length - sent)) }
            state = .producing(length: length, sent: sent, asked: asked)
            return .produce(maxLength: asked)
        }
    }

    /// The producer answered with a piece.
    mutating func produced(_ bytes: [UInt8]) -> Action {
        guard case .producing(let length, let sent, let asked) = state else {
            preconditionFailure("produced(\(bytes.count) bytes) in state \(state)")
        }
        if bytes.isEmpty { return fail("the body producer wrote an empty piece") }
        if bytes.count > asked {
            return fail("the body producer wrote \(bytes.count) bytes when asked for at most \(asked)")
        }
        let total = sent + Int64(bytes.count)
        guard let length else {
            state = .ready(.stream(length: nil, sent: total))
            var framed: [UInt8] = []
            bytes.withUnsafeBytes { HTTPRequestEncoder.encodeChunk($0, into: &framed) }
            return .write(framed, payload: bytes.count)
        }
        if total > length { return fail("the body stream is longer than its declared length \(length)") }
        state = .ready(.stream(length: length, sent: total))
        return .write(bytes, payload: bytes.count)
    }

    /// The producer said the body ended.
    mutating func finished() -> Action {
        guard case .producing(let length, let sent, _) = state else {
            preconditionFailure("finished() in state \(state)")
        }
        guard let length else {
            state = .complete
            var last: [UInt8] = []
            HTTPRequestEncoder.encodeLastChunk(trailers: HTTPHeaders(), into: &last)
            return .finish(last)
        }
        if sent != length { return fail("the body stream ended after \(sent) of its declared \(length) bytes") }
        state = .complete
        return .finish([])
    }

    /// The producer could not produce the body.
    mutating func failed(_ reason: String) -> Action {
        guard case .producing = state else { preconditionFailure("failed(\(reason)) in state \(state)") }
        return fail(reason)
    }

    /// The body will not be sent further (a final response came, or the request ended): complete when
    /// every body byte was handed out (no end check is pending any more), else stopped short.
    mutating func stop() {
        state = isComplete ? .complete : .stopped
    }

    private mutating func fail(_ reason: String) -> Action {
        state = .stopped
        return .fail(reason)
    }
}
