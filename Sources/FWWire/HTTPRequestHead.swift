// The head of a request: request line plus header fields.

/// The head of a request.
public struct HTTPRequestHead: Sendable, Equatable {
    /// The method token, e.g. "GET" (case-sensitive).
    public var method: String
    /// The request target, e.g. "/index.html?q=1" (origin form) or "http://host/" (absolute form).
    public var target: String
    /// The protocol version of the request line.
    public var version: HTTPVersion
    /// The header fields in the order they are written.
    public var headers: HTTPHeaders

    /// A request head from its parts.
    public init(method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }
}
