import CFWOpenSSL

// TLSSessionStore: where a TLSContext keeps resumable sessions between connections. FWTLS holds no
// lock of its own (it cannot see FWLoop's LockedBox, and a second lock type would hide from
// ThreadSanitizer), so whoever shares a context across threads supplies the store and its locking:
// FWTransport's TLSSessionCache keeps the newest session per key behind a LockedBox.
//
//   TLSEngine.init ──session(for:)──────▶ store ──▶ SSL_set_session (offered in the ClientHello)
//   OpenSSL new-session callback ──store(_:for:)──▶ store   (after the handshake; TLS 1.3 tickets later)
//   failed trust / discardSession() ──removeSession(for:)──▶ store

// MARK: - TLSSessionStore

/// Keeps resumable TLS sessions for the engines of a `TLSContext`, keyed by host and port.
///
/// Engines call it on their own thread, the last two methods from inside OpenSSL callbacks during
/// `handshake()` and `readPlaintext`: keep every method short and never call back into an engine.
public protocol TLSSessionStore: AnyObject, Sendable {
    /// The session to offer when connecting to `key`, if one is kept.
    func session(for key: TLSSessionKey) -> TLSSession?

    /// Keeps `session`, the newest resumable session of `key`'s server.
    func store(_ session: TLSSession, for key: TLSSessionKey)

    /// Forgets the session kept for `key`, if any.
    func removeSession(for key: TLSSessionKey)
}

// MARK: - TLSSessionKey

/// A session store key: the host as sent in SNI (lower-cased, without a root dot) and the port.
public struct TLSSessionKey: Hashable, Sendable {
    /// The host name or address, lower-cased, without a trailing dot.
    public let host: String
    /// The server port.
    public let port: Int

    /// The key of `host` and `port`; "Example.COM." and "example.com" are the same host.
    public init(host: String, port: Int) {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        self.host = host
        self.port = port
    }
}

// MARK: - TLSSession

/// One resumable TLS session (an OpenSSL SSL_SESSION, owned), to offer to a later connection.
///
/// `@unchecked Sendable`: a session is immutable once the handshake that made it has finished, its
/// reference count is atomic, and SSL_set_session may use one session from several threads.
public final class TLSSession: @unchecked Sendable { // immutable session, atomic refcount (see above)
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        SSL_SESSION_free(pointer)
    }
}
