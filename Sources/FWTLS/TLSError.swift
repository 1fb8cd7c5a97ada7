import CFWOpenSSL

// MARK: - TLSError

/// A failure of the TLS layer itself: the handshake, the record layer, or decoding keys and certificates.
///
/// Trust decisions are `TrustError`s. Ask the predicates, not the message: `reason` carries OpenSSL's
/// text for diagnosis and is not part of the contract. FWTLS knows nothing of URLError: the session
/// layer maps the predicates to the codes its users expect.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case handshakeFailed
        case protocolError
        case unsupportedProtocolVersion
        case truncated
        case clientCertificateRequired
        case clientCertificateRejected
        case decodingFailed
        case wrongPassword
        case keyMismatch
        case fileUnreadable
        case internalError
    }

    private let code: Code

    /// What happened, with OpenSSL's reason text when there is one (for people, not for matching).
    public let reason: String

    private init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    // MARK: Values

    /// The handshake failed (an alert from the peer, a malformed message, the peer closing early).
    public static func handshakeFailed(reason: String) -> TLSError { TLSError(.handshakeFailed, reason) }

    /// The peer broke the TLS protocol after the handshake (a bad record, an unexpected message, a fatal
    /// alert).
    public static func protocolError(reason: String) -> TLSError { TLSError(.protocolError, reason) }

    /// Client and server share no protocol version within the configured minimum and maximum.
    public static func unsupportedProtocolVersion(reason: String) -> TLSError {
        TLSError(.unsupportedProtocolVersion, reason)
    }

    /// The peer closed the connection without sending close_notify: the data may be truncated.
    public static func truncated(reason: String) -> TLSError { TLSError(.truncated, reason) }

    /// The server asked for a client certificate, none was sent, and the server refused to continue.
    public static func clientCertificateRequired(reason: String) -> TLSError {
        TLSError(.clientCertificateRequired, reason)
    }

    /// The server rejected the client certificate that was sent (bad, unknown CA, expired, ...).
    public static func clientCertificateRejected(reason: String) -> TLSError {
        TLSError(.clientCertificateRejected, reason)
    }

    /// A certificate, key or PKCS#12 blob could not be decoded.
    public static func decodingFailed(reason: String) -> TLSError { TLSError(.decodingFailed, reason) }

    /// The password of an encrypted key or PKCS#12 blob is wrong (or missing).
    public static func wrongPassword(reason: String) -> TLSError { TLSError(.wrongPassword, reason) }

    /// A private key does not belong to the certificate it was paired with.
    public static func keyMismatch(reason: String) -> TLSError { TLSError(.keyMismatch, reason) }

    /// A PEM or PKCS#12 file could not be read.
    public static func fileUnreadable(reason: String) -> TLSError { TLSError(.fileUnreadable, reason) }

    /// OpenSSL failed for a local reason (allocation, configuration it refused).
    public static func internalError(reason: String) -> TLSError { TLSError(.internalError, reason) }

    // MARK: Predicates

    /// True when the handshake failed for a reason no other predicate names.
    public var isHandshakeFailure: Bool { code == .handshakeFailed }
    /// True when the peer broke the protocol after the handshake.
    public var isProtocolError: Bool { code == .protocolError }
    /// True when no protocol version was acceptable to both sides.
    public var isUnsupportedProtocolVersion: Bool { code == .unsupportedProtocolVersion }
    /// True when the peer closed without close_notify (possible truncation attack).
    public var isTruncated: Bool { code == .truncated }
    /// True when the server required a client certificate that was not sent.
    public var isClientCertificateRequired: Bool { code == .clientCertificateRequired }
    /// True when the server rejected the client certificate that was sent.
    public var isClientCertificateRejected: Bool { code == .clientCertificateRejected }
    /// True when a certificate, key or PKCS#12 could not be decoded.
    public var isDecodingFailure: Bool { code == .decodingFailed }
    /// True when a password was wrong or missing.
    public var isWrongPassword: Bool { code == .wrongPassword }
    /// True when a private key does not match its certificate.
    public var isKeyMismatch: Bool { code == .keyMismatch }
    /// True when a file could not be read.
    public var isFileUnreadable: Bool { code == .fileUnreadable }
    /// True for local OpenSSL failures.
    public var isInternalError: Bool { code == .internalError }

    /// The kind of failure and its reason.
    public var description: String {
        "TLSError.\(code)(\(reason))"
    }
}

// MARK: - Classifying OpenSSL failures

extension TLSError {
    /// The error for a failed SSL_do_handshake / SSL_read / SSL_write, from this thread's error queue.
    ///
    /// `duringHandshake` picks `handshakeFailed` or `protocolError` for failures no other code names.
    /// `sentNoCertificateAfterRequest` says the server asked for a client certificate and none was
    /// sent: a TLS 1.2 server then answers with a generic handshake_failure alert.
    static func fromQueue(
        context: String, duringHandshake: Bool, sentNoCertificateAfterRequest: Bool
    ) -> TLSError {
        let errors = OpenSSLErrors.drain()
        let text = errors.text.isEmpty ? context : "\(context): \(errors.text)"
        switch errors.firstReason {
        case SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_NO_PROTOCOLS_AVAILABLE,
            SSL_R_VERSION_TOO_LOW, SSL_R_VERSION_TOO_HIGH:
            return .unsupportedProtocolVersion(reason: text)
        case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
            return .clientCertificateRequired(reason: text)
        case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE where sentNoCertificateAfterRequest:
            return .clientCertificateRequired(reason: text)
        case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_TLSV1_ALERT_UNKNOWN_CA,
            SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN, SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED,
            SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED, SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE,
            SSL_R_TLSV1_ALERT_ACCESS_DENIED:
            if sentNoCertificateAfterRequest { return .clientCertificateRequired(reason: text) }
            return .clientCertificateRejected(reason: text)
        default:
            return duringHandshake ? .handshakeFailed(reason: text) : .protocolError(reason: text)
        }
    }
}
