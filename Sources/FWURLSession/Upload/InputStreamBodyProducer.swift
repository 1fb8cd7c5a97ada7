import Foundation
import FWTransport

// MARK: - InputStreamBodyProducer

/// Produces a request body from an `InputStream`, read on a private serial queue: a read may block
/// (a bound stream pair waits for its writer), so it never runs on a loop thread. The stream is opened
/// on the first piece and closed by `stop()`.
///
/// The stream comes either at once, or from a provider asked on the first piece (for
/// `urlSession(_:task:needNewBodyStream:)`, whose answer may come later, from any thread).
final class InputStreamBodyProducer: TransportBodyProducer, @unchecked Sendable { // vars: `queue` only
    /// Asks for a body stream; `provide` is called exactly once, on any thread, possibly later, with the
    /// stream (unopened) or nil when there is none.
    typealias StreamProvider = @Sendable (_ provide: @escaping @Sendable (InputStream?) -> Void) -> Void

    private enum Source {
        case provider(StreamProvider)
        case waitingForProvider
        case stream(InputStream, isOpen: Bool)
        case stopped
    }

    /// Moves a provided stream onto the producer's queue: from then on only `queue` touches it.
    private struct ProvidedStream: @unchecked Sendable { // handed over once, then used on `queue` only
        let stream: InputStream?
    }

    private let queue = DispatchQueue(label: "FWURLSession.InputStreamBodyProducer")
    /// Where the bytes come from. `queue` only.
    private var source: Source

    /// A producer that reads `stream`, which must not have been opened or read yet.
    init(stream: InputStream) {
        source = .stream(stream, isOpen: false)
    }

    /// A producer that asks `provider` for its stream when the first piece is wanted; a nil stream
    /// fails the body.
    init(provider: @escaping StreamProvider) {
        source = .provider(provider)
    }

    /// A streamed body read from `stream`, which can be sent once: every later attempt (a resend) asks
    /// `newStream` for another stream, and without `newStream` the body cannot be sent again. With a nil
    /// `stream`, the first attempt asks `newStream` too. `length` (nil: unknown, sent chunked) must be
    /// what the stream yields, or the request fails.
    static func bodyStream(_ stream: InputStream?, length: Int64?,
                                  newStream: StreamProvider? = nil) -> TransportBodyStream {
        let first = LockedBox(stream.map(InputStreamBodyProducer.init(stream:)))
        return TransportBodyStream(length: length) {
            let producer = first.withLock { producer in
                defer { producer = nil }
                return producer
            }
            return producer ?? newStream.map(InputStreamBodyProducer.init(provider:))
        }
    }

    // MARK: TransportBodyProducer

    /// Reads the next piece on the producer's queue (asking the provider first when there is no stream
    /// yet); after `stop()` nothing is read or answered.
    func produce(maxLength: Int, into sink: TransportBodySink) {
        queue.async { [self] in
            switch source {
            case .stream(let stream, let isOpen):
                if !isOpen {
                    stream.open()
                    source = .stream(stream, isOpen: true)
                }
                read(stream, maxLength: maxLength, into: sink)
            case .provider(let provider):
                source = .waitingForProvider
                provider { stream in
                    let provided = ProvidedStream(stream: stream)
                    self.queue.async { self.received(provided, maxLength: maxLength, into: sink) }
                }
            case .waitingForProvider:
                sink.fail("a piece was asked for while the body stream was still awaited")
            case .stopped:
                return
            }
        }
    }

    /// Closes the stream (on the producer's queue, after a read in progress).
    func stop() {
        queue.async { [self] in
            if case .stream(let stream, true) = source { stream.close() }
            source = .stopped
        }
    }

    // MARK: Queue only

    private func received(_ provided: ProvidedStream, maxLength: Int, into sink: TransportBodySink) {
        guard case .waitingForProvider = source else { return }
        guard let stream = provided.stream else {
            source = .stopped
            sink.fail("no body stream was provided")
            return
        }
        stream.open()
        source = .stream(stream, isOpen: true)
        read(stream, maxLength: maxLength, into: sink)
    }

    private func read(_ stream: InputStream, maxLength: Int, into sink: TransportBodySink) {
        var count = 0
        let piece = [UInt8](unsafeUninitializedCapacity: maxLength) { buffer, initialized in
            count = buffer.baseAddress.map { stream.read($0, maxLength: buffer.count) } ?? 0
            initialized = max(0, count)
        }
        if count > 0 {
            sink.write(piece)
        } else if count == 0 {
            sink.finish()
        } else {
            sink.fail("reading the body stream failed: \(stream.streamError.map { "\($0)" } ?? "unknown error")")
        }
    }
}
