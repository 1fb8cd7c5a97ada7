import CFWOpenSSL

// MARK: - TLSEngine: the handshake's messages
//
// For event traces: OpenSSL's message callback (SSL_set_msg_callback) reports each protocol message as it is
// sent or received, inside SSL_do_handshake (and, after the handshake, inside SSL_read: a TLS 1.3 server's
// NewSessionTicket or KeyUpdate, and our reply to a KeyUpdate) on the engine's thread; the engine keeps the
// handshake-protocol ones (record content type 22: their first byte is the message type). Off unless
// `recordHandshakeMessages()` is called; the caller takes the log at the handshake's end and after each read
// (`takeHandshakeMessages()`), so the ones after the handshake come out in order with the plaintext.

/// One TLS handshake message, sent or received.
public struct TLSHandshakeMessage: Sendable, Hashable, CustomStringConvertible {
    /// Whether this side sent it (else it was received).
    public let isSent: Bool
    /// The HandshakeType (RFC 8446 §4, RFC 5246 §7.4).
    public let type: UInt8

    /// The message's name ("ClientHello", ...; "HandshakeType N" for one without a name here).
    public var name: String {
        switch type {
        case 0: "HelloRequest"
        case 1: "ClientHello"
        case 2: "ServerHello"
        case 4: "NewSessionTicket"
        case 5: "EndOfEarlyData"
        case 8: "EncryptedExtensions"
        case 11: "Certificate"
        case 12: "ServerKeyExchange"
        case 13: "CertificateRequest"
        case 14: "ServerHelloDone"
        case 15: "CertificateVerify"
        case 16: "ClientKeyExchange"
        case 20: "Finished"
        case 22: "CertificateStatus"
        case 24: "KeyUpdate"
        default: "HandshakeType \(type)"
        }
    }

    /// "> ClientHello" for a sent message, "< ServerHello" for a received one.
    public var description: String { (isSent ? "> " : "< ") + name }
}

extension TLSEngine {
    /// The record content type of handshake messages.
    private static let handshakeContentType: Int32 = 22

    /// Starts recording the handshake's messages (`handshakeMessages`); call it before the handshake starts.
    public func recordHandshakeMessages() {
        handshakeMessageLog = []
        SSL_set_msg_callback(sslPointer) { isWrite, _, contentType, buffer, length, ssl, _ in
            guard contentType == TLSEngine.handshakeContentType, length > 0, let buffer, let ssl,
                  let engine = TLSEngine.owner(of: ssl) else { return }
            engine.handshakeMessageLog?.append(TLSHandshakeMessage(isSent: isWrite != 0,
                                                                   type: buffer.load(as: UInt8.self)))
        }
    }

    /// The handshake messages recorded so far, in order (empty unless `recordHandshakeMessages()` was called).
    public var handshakeMessages: [TLSHandshakeMessage] {
        handshakeMessageLog ?? []
    }

    /// The handshake-protocol messages recorded since the last take (or since recording started), in order, and
    /// forgets them; recording goes on. Empty, without any work, when nothing was recorded. Call it after each
    /// `readPlaintext` to learn the messages that read went through (NewSessionTicket, KeyUpdate, ...), before
    /// the plaintext it returned: the records that carried them came first.
    public func takeHandshakeMessages() -> [TLSHandshakeMessage] {
        guard let log = handshakeMessageLog, !log.isEmpty else { return [] }
        handshakeMessageLog = []
        return log
    }
}
