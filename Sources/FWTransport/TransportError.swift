import FWLoop
import FWTLS
import FWWire

// MARK: - TransportError

/// Why a request failed in the transport. Messages are for people; code keys on the predicates.
public struct TransportError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case cancelled
        case timedOut
        case cannotFindHost
        case cannotConnectToHost
        case noRoute
        case connectionLost
        case badResponse
        case cannotDecodeContent
        case secureConnectionFailed
        case serverTrustRejected
        case invalidRequest
        case unsupportedURL
        case bodyStreamFailed
        case proxyFailed
        case shutDown
        case webSocketHandshakeFailed
        case webSocketProtocol
        case webSocketMessageTooBig
    }

    private let code: Code
    private let detail: String
    /// The lower-level error this one wraps (an `IOError`, `ResolverError`, `HTTPParseError`,
    /// `HTTPRequestError`, `ProxyError`), kept for diagnosis.
    public let underlying: (any Error & Sendable)?
    /// The trust of the server that was refused (its chain as it sent it, the host, the anchors) when the error
    /// is `isServerTrustRejected`; nil otherwise. The refusal carries it to whoever maps the failure, whichever
    /// way the connection went (directly, through a proxy's tunnel, as a stream).
    public let peerTrust: ServerTrust?

    private init(_ code: Code, _ detail: String, underlying: (any Error & Sendable)? = nil,
                 peerTrust: ServerTrust? = nil) {
        self.code = code
        self.detail = detail
        self.underlying = underlying
        self.peerTrust = peerTrust
    }

    // MARK: Constructors

    /// The caller cancelled the request.
    public static let cancelled = TransportError(.cancelled, "cancelled")
    /// The transport was shut down before the request could run.
    public static let shutDown = TransportError(.shutDown, "the transport was shut down")

    /// No bytes moved for longer than the idle timeout, or a deadline passed.
    public static func timedOut(_ detail: String) -> TransportError { TransportError(.timedOut, detail) }

    /// Name resolution failed or found no address.
    public static func cannotFindHost(_ detail: String, underlying: ResolverError?) -> TransportError {
        TransportError(.cannotFindHost, detail, underlying: underlying)
    }

    /// Every address refused or failed the connection. When the reason is that there was no route
    /// (`IOError.isNoRoute`), the error is `isNoRoute` rather than `isCannotConnectToHost`.
    public static func cannotConnect(_ error: IOError) -> TransportError {
        TransportError(error.isNoRoute ? .noRoute : .cannotConnectToHost, "cannot connect: \(error)",
                       underlying: error)
    }

    /// Every address of the proxy refused or failed the connection.
    public static func cannotConnect(toProxy proxy: ProxyServer, _ error: IOError) -> TransportError {
        TransportError(.cannotConnectToHost, "cannot connect to the proxy \(proxy): \(error)", underlying: error)
    }

    /// The proxy refused to open the way to the origin, wants credentials, or broke its protocol (the
    /// `ProxyError` is the underlying error).
    public static func proxyFailed(_ error: ProxyError) -> TransportError {
        TransportError(.proxyFailed, "proxy: \(error)", underlying: error)
    }

    /// The connection ended (reset, or closed before the response was complete).
    public static func connectionLost(_ detail: String, underlying: (any Error & Sendable)? = nil) -> TransportError {
        TransportError(.connectionLost, detail, underlying: underlying)
    }

    /// The server sent something that is not a valid HTTP/1.1 response.
    public static func badResponse(_ error: HTTPParseError) -> TransportError {
        TransportError(.badResponse, "bad response: \(error)", underlying: error)
    }

    /// The body's Content-Encoding could not be undone (corrupt or truncated compressed data).
    public static func cannotDecodeContent(_ detail: String) -> TransportError {
        TransportError(.cannotDecodeContent, detail)
    }

    /// The TLS handshake or a TLS record failed (protocol version, alerts, client certificate, truncation).
    public static func secureConnectionFailed(_ error: TLSError) -> TransportError {
        TransportError(.secureConnectionFailed, "secure connection failed: \(error)", underlying: error)
    }

    /// The server's certificate chain was not trusted (by the evaluator or by the delegate); `peerTrust` is the
    /// trust that was judged, kept in the error (`peerTrust`).
    public static func serverTrustRejected(_ error: TrustError, peerTrust: ServerTrust) -> TransportError {
        TransportError(.serverTrustRejected, "server trust rejected: \(error)", underlying: error,
                       peerTrust: peerTrust)
    }

    /// The request would put invalid bytes on the wire; nothing was sent.
    public static func invalidRequest(_ error: HTTPRequestError) -> TransportError {
        TransportError(.invalidRequest, "invalid request: \(error)", underlying: error)
    }

    /// The URL cannot be carried by this transport (scheme, missing host).
    public static func unsupportedURL(_ detail: String) -> TransportError { TransportError(.unsupportedURL, detail) }

    /// A streamed request body could not be sent: its producer failed or broke its contract, it was
    /// longer or shorter than its declared length, or no producer could be made for it. The connection
    /// is not reused.
    public static func bodyStreamFailed(_ reason: String) -> TransportError {
        TransportError(.bodyStreamFailed, "the request body stream failed: \(reason)")
    }

    /// The server's answer to a WebSocket handshake broke RFC 6455 §4.1 (the `WebSocketHandshakeError` is
    /// the underlying error).
    public static func webSocketHandshakeFailed(_ error: WebSocketHandshakeError) -> TransportError {
        TransportError(.webSocketHandshakeFailed, "WebSocket handshake failed: \(error)", underlying: error)
    }

    /// The WebSocket peer broke the protocol (the `WebSocketError` is the underlying error); a message larger
    /// than the limit is `isWebSocketMessageTooBig` instead.
    public static func webSocketFailed(_ error: WebSocketError) -> TransportError {
        let tooBig = error == .messageTooBig || error == .frameTooLarge
        let code: Code = tooBig ? .webSocketMessageTooBig : .webSocketProtocol
        return TransportError(code, "WebSocket: \(error)", underlying: error)
    }

    // MARK: Predicates

    /// See `cancelled`.
    public var isCancelled: Bool { code == .cancelled }
    /// See `timedOut(_:)`.
    public var isTimedOut: Bool { code == .timedOut }
    /// See `cannotFindHost(_:)`.
    public var isCannotFindHost: Bool { code == .cannotFindHost }
    /// See `cannotConnect(_:)`.
    public var isCannotConnectToHost: Bool { code == .cannotConnectToHost }
    /// Name resolution failed for now (`EAI_AGAIN`: no name server answered), as it does when the host is
    /// offline; a later lookup may succeed.
    public var isTemporaryLookupFailure: Bool {
        code == .cannotFindHost && (underlying as? ResolverError)?.isTemporaryFailure == true
    }
    /// The connection could not be made because there was no route to the host (see
    /// `cannotConnect(_:)`): the host is offline, or not on any network the host can reach.
    public var isNoRoute: Bool { code == .noRoute }
    /// See `connectionLost(_:underlying:)`.
    public var isConnectionLost: Bool { code == .connectionLost }
    /// See `badResponse(_:)`.
    public var isBadResponse: Bool { code == .badResponse }
    /// See `cannotDecodeContent(_:)`.
    public var isCannotDecodeContent: Bool { code == .cannotDecodeContent }
    /// See `secureConnectionFailed(_:)`.
    public var isSecureConnectionFailed: Bool { code == .secureConnectionFailed }
    /// See `serverTrustRejected(_:)`.
    public var isServerTrustRejected: Bool { code == .serverTrustRejected }
    /// See `invalidRequest(_:)`.
    public var isInvalidRequest: Bool { code == .invalidRequest }
    /// See `unsupportedURL(_:)`.
    public var isUnsupportedURL: Bool { code == .unsupportedURL }
    /// See `bodyStreamFailed(_:)`.
    public var isBodyStreamFailed: Bool { code == .bodyStreamFailed }
    /// See `proxyFailed(_:)`.
    public var isProxyFailure: Bool { code == .proxyFailed }
    /// See `shutDown`.
    public var isShutDown: Bool { code == .shutDown }
    /// See `webSocketHandshakeFailed(_:)`.
    public var isWebSocketHandshakeFailure: Bool { code == .webSocketHandshakeFailed }
    /// A WebSocket peer broke the protocol (see `webSocketFailed(_:)`).
    public var isWebSocketProtocolError: Bool { code == .webSocketProtocol }
    /// A WebSocket message or frame was larger than the limit (close code 1009; see `webSocketFailed(_:)`).
    public var isWebSocketMessageTooBig: Bool { code == .webSocketMessageTooBig }

    /// A human-readable explanation.
    public var description: String { detail }
}
