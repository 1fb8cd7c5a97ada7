import Foundation
import FWTransport

// MARK: - URLSessionStreamTask
//
// The public face of a stream task: FoundationNetworking's names and signatures (which swift-corelibs-
// foundation declares but marks unavailable). The task's `StreamSink` (`StreamSink.swift`) holds the stream
// state and does the work on the connection's `StreamChannel`.

/// A task that reads and writes a raw TCP connection, made by `URLSession.streamTask(withHostName:port:)`, or
/// by a data task whose delegate answered its response with `.becomeStream`. TLS can be started and stopped
/// on the live connection; the two directions close on their own. The task completes once both are closed,
/// after `captureStreams()`, on `cancel()`, or with the error that ended the connection.
open class URLSessionStreamTask: URLSessionTask, @unchecked Sendable { // state: URLSessionTask's boxes + the sink's
    let stream: StreamSink
    /// Where `streamTask(withHostName:port:)` connects (nil for a task made by `.becomeStream`).
    let endpoint: (host: String, port: Int)?

    init(session: URLSession, identifier: Int, host: String, port: Int) {
        let sink = StreamSink()
        stream = sink
        endpoint = (host, port)
        super.init(session: session, identifier: identifier, request: nil, sink: sink)
    }

    init(session: URLSession, identifier: Int, becoming request: URLRequest?) {
        let sink = StreamSink()
        stream = sink
        endpoint = nil
        super.init(session: session, identifier: identifier, request: request, sink: sink)
    }

    // MARK: Reading and writing

    /// Reads at least `minBytes` and at most `maxBytes` bytes; fewer only at the end of the stream (`atEOF`
    /// true; the data is nil when nothing was left). Reads are answered in order, on the delegate queue. A
    /// positive `timeout` (seconds) ends a read still waiting then with `URLError.timedOut`.
    open func readData(ofMinLength minBytes: Int, maxLength maxBytes: Int, timeout: TimeInterval,
                       completionHandler: @escaping @Sendable (Data?, Bool, (any Error)?) -> Void) {
        stream.call(.read(min: minBytes, max: maxBytes, timeout: Self.duration(timeout), completionHandler), task: self)
    }

    /// Reads at least `minBytes` and at most `maxBytes` bytes (see `readData(ofMinLength:maxLength:timeout:
    /// completionHandler:)`); returns the data and whether the stream ended.
    open func readData(ofMinLength minBytes: Int, maxLength maxBytes: Int,
                       timeout: TimeInterval) async throws -> (Data?, Bool) {
        try await withCheckedThrowingContinuation { continuation in
            readData(ofMinLength: minBytes, maxLength: maxBytes, timeout: timeout) { data, atEOF, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (data, atEOF))
                }
            }
        }
    }

    /// Writes `data` after the writes before it; `completionHandler` runs on the delegate queue once the
    /// connection took every byte, or with the error that ended it (`URLError.timedOut` after a positive
    /// `timeout`; the bytes may still go out then).
    open func write(_ data: Data, timeout: TimeInterval,
                    completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        stream.call(.write([UInt8](data), timeout: Self.duration(timeout), completionHandler), task: self)
    }

    /// Writes `data` and returns once the connection took it.
    open func write(_ data: Data, timeout: TimeInterval) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            write(data, timeout: timeout) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    // MARK: Streams

    /// Once the reads and writes made before are answered, hands the connection to the delegate as an
    /// unopened `InputStream` and `OutputStream` (`urlSession(_:streamTask:didBecome:outputStream:)`); the task
    /// then completes. The streams block the calling thread in `read` and `write` (Foundation on Linux has no
    /// run-loop sources for custom streams).
    open func captureStreams() {
        stream.capture(task: self)
    }

    // MARK: Closing

    /// Stops reading once the reads made before are answered: later reads report the end of the stream.
    open func closeRead() {
        stream.call(.closeRead, task: self)
    }

    /// Shuts the write side down (`shutdown(SHUT_WR)`, after close_notify on TLS) once the writes made before
    /// went out; the peer reads the end of the stream. Later writes fail.
    open func closeWrite() {
        stream.call(.closeWrite, task: self)
    }

    // MARK: TLS

    /// Starts TLS on the connection once the writes made before went out, with the session's TLS settings
    /// and trust: a server-trust challenge goes to the delegate as for HTTPS (pinning included), and a
    /// refused server ends the task with `URLError.serverCertificateUntrusted` (or the code of the reason).
    /// Reads and writes made after this call wait for the handshake.
    open func startSecureConnection() {
        stream.call(.startTLS, task: self)
    }

    /// Ends TLS once the writes made before went out (close_notify both ways); the connection goes on in
    /// plaintext.
    open func stopSecureConnection() {
        stream.call(.stopTLS, task: self)
    }

    // MARK: Control

    /// Connects, at the first `resume()`.
    override func startLoading() {
        connect()
    }

    /// Cancels the task: the connection is dropped, waiting reads and writes fail, and the task completes
    /// with `URLError.cancelled`.
    open override func cancel() {
        stream.abandon(task: self)
        super.cancel()
    }

    /// An event of the data task this task succeeds: its body bytes are the stream's first, its end or failure
    /// matters only while no connection came.
    override func adopt(_ event: TaskEvent) {
        switch event {
        case .transport(.body(let bytes)): enqueue(.stream(.prefix(bytes)))
        case .transport(.end): enqueue(.stream(.responseEnded))
        case .transport(.failed(let error)): enqueue(.stream(.responseFailed(error)))
        case .stream: enqueue(event)
        default: return
        }
    }

    private func connect() {
        guard let endpoint else { return }
        guard let transport = session.transport else {
            return enqueue(.stream(.connectFailed(.shutDown)))
        }
        let timeout = TransportRequest.timeout([session.sessionConfiguration.timeoutIntervalForRequest])
        transport.openStream(host: endpoint.host, port: endpoint.port, connectTimeout: timeout) { [weak self] result in
            switch result {
            case .success(let channel):
                guard let self else { return channel.abort(.cancelled) }
                self.enqueue(.stream(.attached(channel)))
            case .failure(let error):
                self?.enqueue(.stream(.connectFailed(error)))
            }
        }
    }

    private static func duration(_ timeout: TimeInterval) -> Duration? {
        timeout > 0 && timeout < TimeInterval(Int32.max) ? .seconds(timeout) : nil
    }

    /// The task's identifier and where it connects (the request's URL for a task made by `.becomeStream`).
    open override var description: String {
        guard let endpoint else { return super.description }
        return "<\(type(of: self)): \(taskIdentifier)> { \(endpoint.host):\(endpoint.port) }"
    }
}
