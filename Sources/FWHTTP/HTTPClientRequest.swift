import FWWire

// MARK: - HTTPClientRequest

/// One request as a value: method, URL text, header fields in the order they are sent, and a body.
///
/// The URL is parsed (``URI``) when the request is executed, so a bad URL is an error of `execute`, not a
/// crash here. `Host`, the body's framing and (with content decoding) `Accept-Encoding` are added by the
/// client unless set here.
public struct HTTPClientRequest: Sendable {
    /// The method, as sent (`GET`, `POST`, ...).
    public var method: String
    /// The absolute URL, `http://` or `https://`.
    public var url: String
    /// The header fields, in order, duplicates kept.
    public var headers: HTTPHeaders
    /// The body; nil sends none.
    public var body: Body?

    /// Creates a request.
    public init(method: String = "GET", url: String, headers: HTTPHeaders = HTTPHeaders(), body: Body? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A request body.
    public enum Body: Sendable {
        /// Bytes in memory (sent again as they are when a request is retried).
        case bytes([UInt8])
        /// Produced on demand, piece by piece, in constant memory: `produce` is called for the next piece
        /// of at most `maxLength` bytes only when the socket took the previous one, and returns nil at the
        /// end (empty pieces are skipped). `length` nil sends the body chunked; a stream is sent once (a
        /// request with one is not retried on a new connection).
        case stream(length: Int64?, produce: @Sendable (_ maxLength: Int) async throws -> [UInt8]?)
    }
}

// MARK: - HTTPClientResponse

/// A response head, and its body as a stream of byte chunks.
///
/// Reading ``body`` applies backpressure: while the chunks the client holds exceed a high-water mark it
/// stops reading the socket, and it reads again when the reader drained them. Dropping the response
/// before its body ended cancels the request.
public struct HTTPClientResponse: Sendable {
    /// The status code.
    public let status: Int
    /// The reason phrase, as sent.
    public let reason: String
    /// The HTTP version of the response.
    public let version: HTTPVersion
    /// The header fields in wire order, duplicates kept.
    public let headers: HTTPHeaders
    /// The URL this response came from (the last one after redirects).
    public let url: URI
    /// The body.
    public let body: Body

    init(head: HTTPResponseHead, url: URI, body: Body) {
        self.status = head.status
        self.reason = head.reason
        self.version = head.version
        self.headers = head.headers
        self.url = url
        self.body = body
    }

    /// The timings and byte counts of every hop so far; complete once ``body`` ended.
    public var metrics: HTTPClientMetrics { body.exchange.metrics }
}
