// LoopbackHTTPServer: a small keep-alive HTTP/1.1 server with a request handler, for integration tests.

// MARK: - LoopbackHTTPServer

/// A small keep-alive HTTP/1.1 server with routes, for integration tests.
/// Each connection loops: read a request, call the handler, write its reply, until the client
/// closes, the reply says close, or the idle timeout (5 s, or the `ioTimeout` given).
///
/// Also closes after a request that asks for it (`Connection: close`, or HTTP/1.0 without keep-alive),
/// answers `Expect: 100-continue` with `100 Continue` before reading the body, and answers a malformed
/// request with `400 Bad Request` and a close.
public final class LoopbackHTTPServer: Sendable {
    private let listener: LoopbackListener

    /// Starts listening; `handler` is called on the connection's thread for every request. A read or write
    /// waits at most `ioTimeout` seconds (default 5).
    public init(ioTimeout: Double = 5, handler: @escaping @Sendable (ReceivedRequest) -> Reply) throws {
        listener = try LoopbackListener(ioTimeout: ioTimeout) { connection in
            Self.serve(connection, handler: handler)
        }
    }

    deinit {
        listener.stop()
    }

    // MARK: Observing

    /// The port on 127.0.0.1.
    public var port: Int { listener.port }
    /// The base URL, `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(listener.port)" }
    /// Connections accepted so far.
    public var connectionCount: Int { listener.connectionCount }
    /// The largest number of connections open at the same time.
    public var peakConcurrentConnections: Int { listener.peakConcurrentConnections }
    /// Requests read so far.
    public var requestCount: Int { listener.requests.count }
    /// Every request read, in order.
    public var requests: [ReceivedRequest] { listener.requests }

    // MARK: Stopping

    /// Closes the listener and all connections and joins all threads. Idempotent; also run by deinit.
    public func stop() {
        listener.stop()
    }

    // MARK: Serving

    private static let continueBytes = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    private static let badRequestBytes = Array(
        "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)

    /// The keep-alive loop of one connection. Timeouts, resets and `stop()` end it quietly.
    private static func serve(
        _ connection: ScriptedConnection, handler: @Sendable (ReceivedRequest) -> Reply
    ) {
        while true {
            let request: ReceivedRequest
            do {
                let next = try connection.readRequest { head in
                    if head.expectsContinue { try connection.write(continueBytes) }
                }
                guard let next else { return }
                request = next
            } catch let error as TestSupportError where error == .malformedRequest("") {
                try? connection.write(badRequestBytes)
                return
            } catch {
                return
            }
            let reply = handler(request)
            if reply.delay > 0, !connection.pause(reply.delay) { return }
            guard (try? connection.write(reply.bytes)) != nil else { return }
            if reply.closeAfter || request.wantsClose { return }
        }
    }
}
