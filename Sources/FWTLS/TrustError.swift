// MARK: - TrustError

/// Why a server's certificate chain was not trusted.
///
/// Ask the predicates (the session layer maps them to URLError codes); `reason` is the text for people.
public struct TrustError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case untrusted
        case expired
        case notYetValid
        case unknownRoot
        case hostnameMismatch
        case pinMismatch
        case revoked
        case invalidPin
    }

    private let code: Code

    /// What failed and where (OpenSSL's verification text with the certificate depth, the host, the
    /// pins); for people, not for matching.
    public let reason: String

    private init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    // MARK: Values

    /// The chain is invalid for a reason no other value names (bad signature, wrong key usage, ...).
    public static func untrusted(reason: String) -> TrustError { TrustError(.untrusted, reason) }
    /// A certificate of the chain has expired.
    public static func expired(reason: String) -> TrustError { TrustError(.expired, reason) }
    /// A certificate of the chain is not valid yet.
    public static func notYetValid(reason: String) -> TrustError { TrustError(.notYetValid, reason) }
    /// The chain does not lead to a trusted anchor (unknown CA, self-signed, missing intermediate).
    public static func unknownRoot(reason: String) -> TrustError { TrustError(.unknownRoot, reason) }
    /// The leaf does not identify the host.
    public static func hostnameMismatch(reason: String) -> TrustError { TrustError(.hostnameMismatch, reason) }
    /// No certificate or key of the chain matches the pins.
    public static func pinMismatch(reason: String) -> TrustError { TrustError(.pinMismatch, reason) }
    /// The leaf is revoked (a stapled OCSP response said so).
    public static func revoked(reason: String) -> TrustError { TrustError(.revoked, reason) }
    /// A pin string is malformed (not `sha256//` + base64 of 32 bytes).
    public static func invalidPin(reason: String) -> TrustError { TrustError(.invalidPin, reason) }

    // MARK: Predicates

    /// True for an invalid chain no other predicate names.
    public var isUntrusted: Bool { code == .untrusted }
    /// True when a certificate has expired ("bad date").
    public var isExpired: Bool { code == .expired }
    /// True when a certificate is not valid yet.
    public var isNotYetValid: Bool { code == .notYetValid }
    /// True when the chain does not reach a trusted anchor.
    public var isUnknownRoot: Bool { code == .unknownRoot }
    /// True when the leaf does not identify the host.
    public var isHostnameMismatch: Bool { code == .hostnameMismatch }
    /// True when no pin matched.
    public var isPinMismatch: Bool { code == .pinMismatch }
    /// True when the leaf is revoked.
    public var isRevoked: Bool { code == .revoked }
    /// True when a pin string was malformed.
    public var isInvalidPin: Bool { code == .invalidPin }

    /// The kind of failure and its reason.
    public var description: String {
        "TrustError.\(code)(\(reason))"
    }
}
