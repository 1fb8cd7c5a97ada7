import FWTLS
import FWTransport

// MARK: - HTTPClientError

/// Why a request failed. Ask the predicates; `description` is for people.
///
/// A failure of the connection or the exchange keeps the transport's error (``transportError``), whose
/// predicates tell lookup, connect, TLS, trust and protocol failures apart.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case invalidURL
        case unsupportedScheme
        case tooManyRedirects
        case requestTimedOut
        case bodyTooLarge
        case cancelled
        case transport
    }

    private let code: Code
    private let detail: String

    /// The transport's error when the connection or the exchange failed.
    public let transportError: TransportError?

    private init(_ code: Code, _ detail: String, transportError: TransportError? = nil) {
        self.code = code
        self.detail = detail
        self.transportError = transportError
    }

    // MARK: Values

    /// The URL is not an absolute `scheme://host` URI.
    public static func invalidURL(_ error: URIError) -> HTTPClientError { HTTPClientError(.invalidURL, error.reason) }
    /// The URL's scheme is not `http` or `https`.
    public static func unsupportedScheme(_ scheme: String) -> HTTPClientError {
        HTTPClientError(.unsupportedScheme, "unsupported scheme \"\(scheme)\"")
    }
    /// More redirects than the policy allows.
    public static func tooManyRedirects(_ count: Int) -> HTTPClientError {
        HTTPClientError(.tooManyRedirects, "more than \(count) redirects")
    }
    /// The whole request took longer than `requestTimeout`.
    public static let requestTimedOut = HTTPClientError(.requestTimedOut, "the request took longer than its timeout")
    /// A collected body was longer than the limit given.
    public static func bodyTooLarge(_ limit: Int) -> HTTPClientError {
        HTTPClientError(.bodyTooLarge, "the body is longer than \(limit) bytes")
    }
    /// The caller cancelled the request (its task, or dropped the response before its body ended).
    public static let cancelled = HTTPClientError(.cancelled, "cancelled")
    /// The connection or the exchange failed.
    public static func transport(_ error: TransportError) -> HTTPClientError {
        if error.isCancelled { return .cancelled }
        return HTTPClientError(.transport, error.description, transportError: error)
    }

    // MARK: Predicates

    /// True for a URL the client cannot parse.
    public var isInvalidURL: Bool { code == .invalidURL }
    /// True for a scheme other than http and https.
    public var isUnsupportedScheme: Bool { code == .unsupportedScheme }
    /// True when the redirect policy's limit was passed.
    public var isTooManyRedirects: Bool { code == .tooManyRedirects }
    /// True when the request or a connection timed out (whole request, idle, or connect).
    public var isTimedOut: Bool { code == .requestTimedOut || transportError?.isTimedOut == true }
    /// True when a collected body passed its limit.
    public var isBodyTooLarge: Bool { code == .bodyTooLarge }
    /// True when the caller cancelled.
    public var isCancelled: Bool { code == .cancelled }
    /// The trust failure when the server's certificate chain, host name or pins were refused.
    public var trustError: TrustError? { transportError?.underlying as? TrustError }

    /// What failed, for people.
    public var description: String { "HTTPClientError.\(code): \(detail)" }
}
