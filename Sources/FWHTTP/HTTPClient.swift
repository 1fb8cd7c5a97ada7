import FWLoop
import FWTransport
import FWWire

// MARK: - HTTPClient

/// An HTTP/1.1 client without Foundation: a connection pool over the project's own event loops, OpenSSL,
/// and values for requests and responses.
///
/// Make one client and share it: it keeps connections alive between requests (per host, up to
/// `maxConnectionsPerHost`). ``execute(_:)`` returns once the response head arrived, with the body as a
/// stream; ``fetch(_:maxBodyBytes:)`` collects the body too; ``execute(_:maxBodyBytes:completion:)`` is the
/// callback form. Call ``shutdown()`` when done (not from inside a callback of the client).
public final class HTTPClient: Sendable {
    /// The settings this client was made with.
    public let configuration: Configuration

    let transport: HTTPTransport
    private let group: EventLoopGroup

    /// Creates a client with its own event loops (`loopCount`, default 1: one thread carries every
    /// connection, enough for most clients). Throws when the process cannot start a loop (no file
    /// descriptors or threads left).
    public init(configuration: Configuration = Configuration(), loopCount: Int = 1) throws(IOError) {
        self.configuration = configuration
        self.group = try EventLoopGroup(loopCount: loopCount, namePrefix: "fwhttp")
        self.transport = HTTPTransport(configuration: configuration.transportConfiguration, group: group)
    }

    /// Stops the client: requests still waiting for a connection fail, running ones end, then the loops
    /// stop. Idempotent.
    public func shutdown() {
        transport.shutdown()
        group.shutdown()
    }

    // MARK: Requests

    /// Sends `request`, following redirects as configured, and returns when the final response's head
    /// arrived; read its ``HTTPClientResponse/body``.
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        var walk = try RedirectWalk(request, client: self, timerLoop: group.next())
        while true {
            let exchange = try walk.startHop()
            if let response = try walk.response(to: try await exchange.head(), of: exchange) { return response }
        }
    }

    /// The blocking form of ``execute(_:)``, for programs that run no Swift concurrency: the calling thread
    /// waits for the head, and reads the body with ``HTTPClientResponse/Body/blockingNext()``.
    ///
    /// A process that never starts a task has no cooperative thread pool and no dispatch threads: this is
    /// how `fwget` stays small. Do not call it from a task (it would hold a cooperative thread) or from a
    /// callback of this client (it would wait for itself).
    public func blockingExecute(_ request: HTTPClientRequest) throws(HTTPClientError) -> HTTPClientResponse {
        var walk = try RedirectWalk(request, client: self, timerLoop: group.next())
        while true {
            let exchange = try walk.startHop()
            if let response = try walk.response(to: try exchange.blockingHead(), of: exchange) { return response }
        }
    }

    /// Sends `request` and collects the whole body (at most `maxBodyBytes`, else
    /// ``HTTPClientError/isBodyTooLarge``).
    public func fetch(_ request: HTTPClientRequest, maxBodyBytes: Int = 64 << 20)
        async throws(HTTPClientError) -> (response: HTTPClientResponse, body: [UInt8]) {
        let response = try await execute(request)
        return (response, try await response.body.collect(upTo: maxBodyBytes))
    }

    /// The callback form of ``fetch(_:maxBodyBytes:)``: `completion` is called once, on a task of the
    /// global executor. Cancel the returned task to cancel the request.
    @discardableResult
    public func execute(
        _ request: HTTPClientRequest, maxBodyBytes: Int = 64 << 20,
        completion: @escaping @Sendable (Result<(response: HTTPClientResponse, body: [UInt8]), HTTPClientError>) -> Void
    ) -> Task<Void, Never> {
        Task {
            do throws(HTTPClientError) {
                completion(.success(try await fetch(request, maxBodyBytes: maxBodyBytes)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    // MARK: Building a hop

    /// The transport request for `request` to `uri`.
    func transportRequest(_ request: HTTPClientRequest, to uri: URI) throws(HTTPClientError) -> TransportRequest {
        guard uri.scheme == "http" || uri.scheme == "https" else { throw .unsupportedScheme(uri.scheme) }
        let key = ConnectionKey(scheme: uri.scheme, host: uri.host,
                                port: uri.port ?? ConnectionKey.defaultPort(forScheme: uri.scheme),
                                proxy: configuration.proxy)
        var headers = request.headers
        if !headers.contains(name: "User-Agent") { headers.add(name: "User-Agent", value: "FWHTTP") }
        if !headers.contains(name: "Accept") { headers.add(name: "Accept", value: "*/*") }
        if configuration.decodesContent, !headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: ContentCodings.acceptEncoding)
        }
        var target = uri.requestTarget
        if key.usesAbsoluteForm { target = "\(uri.scheme)://\(uri.authority)\(target)" }
        return TransportRequest(
            key: key, head: HTTPRequestHead(method: request.method, target: target, headers: headers),
            body: request.body.map(Self.transportBody), idleTimeout: configuration.idleTimeout,
            decodesContent: configuration.decodesContent, reportsConnection: false)
    }

    private static func transportBody(_ body: HTTPClientRequest.Body) -> TransportRequestBody {
        switch body {
        case .bytes(let bytes):
            return .bytes(bytes)
        case .stream(let length, let produce):
            let made = LockedBox(false)
            return .stream(TransportBodyStream(length: length) {
                // A stream is read once: a resend on a new connection gets no producer and fails.
                guard !made.withLock({ made in defer { made = true }; return made }) else { return nil }
                return StreamedUpload(produce: produce)
            })
        }
    }
}
