// MARK: - TransportRequestBody
//
// What a request sends after its head: bytes in memory, or a stream produced piece by piece on demand
// (files, input streams) in constant memory. A stream of known length is framed by Content-Length,
// one of unknown length by chunked transfer coding. The connection pulls the next piece only when
// the socket took the previous ones, so memory stays bounded whatever the length.

/// A request body as the transport sends it.
public enum TransportRequestBody: Sendable {
    /// Bytes in memory (replayable for a retry).
    case bytes([UInt8])
    /// Produced piece by piece, in constant memory.
    case stream(TransportBodyStream)
}

extension TransportRequestBody {
    /// The number of body bytes when known (nil: a stream of unknown length, sent chunked).
    public var length: Int64? {
        switch self {
        case .bytes(let bytes): return Int64(bytes.count)
        case .stream(let stream): return stream.length
        }
    }
}

// MARK: - TransportBodyStream

/// A body produced on demand: its length when known, and how to make a producer for each attempt.
public struct TransportBodyStream: Sendable {
    /// Total length when known (sent as Content-Length); nil sends `Transfer-Encoding: chunked`.
    public var length: Int64?
    /// A fresh producer from the first byte; called for the first attempt and for every resend (a
    /// retry on a new connection). nil when the body cannot be produced again. Called on a loop thread:
    /// return at once (open files and ask delegates in the producer, when it is first asked for bytes).
    public var makeProducer: @Sendable () -> (any TransportBodyProducer)?

    /// Creates a stream body; a negative `length` counts as unknown.
    public init(length: Int64?, makeProducer: @escaping @Sendable () -> (any TransportBodyProducer)?) {
        self.length = length.flatMap { $0 >= 0 ? $0 : nil }
        self.makeProducer = makeProducer
    }
}

// MARK: - TransportBodyProducer

/// Produces a body on demand (pull with backpressure: the connection asks for the next piece only when
/// the socket took the previous ones).
///
/// The connection never has more than one `produce` outstanding, and asks for at most
/// `TransportBodyProducer.maximumPieceSize` bytes at a time. Time spent waiting for an answer counts as
/// idle time for the request's idle timeout.
public protocol TransportBodyProducer: AnyObject, Sendable {
    /// Produce up to `maxLength` bytes and answer through `sink` exactly once, on any thread, possibly
    /// later: `sink.write(bytes)` (non-empty), `sink.finish()` at the end, or `sink.fail(reason)`.
    ///
    /// More than `maxLength` bytes, an empty piece, or more or fewer bytes in all than a stream's
    /// declared length fail the request (nothing mis-framed is ever written).
    func produce(maxLength: Int, into sink: TransportBodySink)
    /// The body is complete or the request ended (done, failed, cancelled, or a final response came
    /// before the body was all sent): release files/streams. Called exactly once per producer, on a loop
    /// thread; a `produce` may still be running (its answer is then ignored).
    func stop()
}

extension TransportBodyProducer {
    /// The largest piece the connection asks for (64 KiB).
    public static var maximumPieceSize: Int { RequestBodyStateMachine.pieceSize }
}

// MARK: - TransportBodySink

/// Where a producer's answer goes; hops onto the connection's loop. Answers after the request ended
/// are ignored, as is any answer after the first to the same `produce` call.
public struct TransportBodySink: Sendable {
    /// One answer of a producer.
    public enum Answer: Sendable {
        /// The next piece (non-empty).
        case bytes([UInt8])
        /// The body ended.
        case finish
        /// The body cannot be produced; the request fails with `TransportError.bodyStreamFailed`.
        case fail(String)
    }

    private let receive: @Sendable (Answer) -> Void

    /// A sink that hands each answer to `receive` (for producers that wrap another producer, and tests).
    public init(_ receive: @escaping @Sendable (Answer) -> Void) {
        self.receive = receive
    }

    /// The next piece of the body (non-empty, at most the `maxLength` asked for).
    public func write(_ bytes: [UInt8]) { receive(.bytes(bytes)) }

    /// The body ended after the pieces written so far.
    public func finish() { receive(.finish) }

    /// The body cannot be produced (a read failed); `reason` is for people.
    public func fail(_ reason: String) { receive(.fail(reason)) }
}
