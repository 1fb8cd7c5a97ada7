// The head of a response: status line plus header fields.

/// The head of a response.
public struct HTTPResponseHead: Sendable, Equatable {
    /// The protocol version of the status line.
    public var version: HTTPVersion
    /// The three-digit status code.
    public var status: Int
    /// The reason phrase, possibly empty, decoded as ISO-8859-1.
    public var reason: String
    /// The header fields in the order received.
    public var headers: HTTPHeaders

    /// A response head from its parts.
    public init(version: HTTPVersion, status: Int, reason: String, headers: HTTPHeaders) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }
}
