// MARK: - ProxyError

/// Why a proxy would not open the way to an origin: remote misbehaviour or a refusal, always a value.
/// Messages are for people; code keys on the predicates.
public struct ProxyError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case refused
        case authenticationRequired
        case malformedReply
    }

    private let code: Code
    private let detail: String
    /// The `Proxy-Authenticate` values of the 407 behind an `authenticationRequired` CONNECT failure (empty
    /// for every other failure): the challenges a layer above may answer with a new tunnel.
    public let proxyAuthenticate: [String]

    private init(_ code: Code, _ detail: String, proxyAuthenticate: [String] = []) {
        self.code = code
        self.detail = detail
        self.proxyAuthenticate = proxyAuthenticate
    }

    /// The proxy answered but would not connect to the origin (a non-2xx CONNECT answer other than an
    /// unanswerable 407, a SOCKS5 reply other than "succeeded", no acceptable SOCKS5 method, a close).
    public static func refused(_ detail: String) -> ProxyError { ProxyError(.refused, detail) }

    /// The proxy wants credentials that were not given, not accepted, or asked for in a scheme we do
    /// not speak (a CONNECT 407, a failed RFC 1929 exchange); `proxyAuthenticate`: the 407's challenges.
    public static func authenticationRequired(_ detail: String, proxyAuthenticate: [String] = []) -> ProxyError {
        ProxyError(.authenticationRequired, detail, proxyAuthenticate: proxyAuthenticate)
    }

    /// The proxy's answer broke its protocol (a bad SOCKS5 version or address type, an unparsable
    /// CONNECT answer, bytes after the tunnel opened before we sent any).
    public static func malformedReply(_ detail: String) -> ProxyError { ProxyError(.malformedReply, detail) }

    /// See `refused(_:)`.
    public var isRefused: Bool { code == .refused }
    /// See `authenticationRequired(_:)`.
    public var isAuthenticationRequired: Bool { code == .authenticationRequired }
    /// See `malformedReply(_:)`.
    public var isMalformedReply: Bool { code == .malformedReply }

    /// A human-readable explanation.
    public var description: String { detail }
}
