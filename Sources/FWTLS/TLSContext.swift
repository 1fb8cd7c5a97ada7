import CFWOpenSSL
import Synchronization

// MARK: - TLSContext

/// An OpenSSL SSL_CTX built from one `TLSConfiguration`, created once and shared by every connection
/// that uses the configuration, with the client session cache for resumption.
///
/// The cache keeps the newest resumable session per (host, port): TLS 1.2 session ids and tickets when
/// the handshake ends, TLS 1.3 tickets when they arrive after it (so read some application data before
/// closing a connection whose session you want to reuse). A new `TLSEngine` for the same host and port
/// offers that session.
///
/// `@unchecked Sendable`: `pointer` (the SSL_CTX) is configured completely in `init` and only read
/// afterwards (SSL_new), which OpenSSL supports from any thread; `sessions` has its own lock.
public final class TLSContext: @unchecked Sendable { // see the doc comment: configured in init, then read-only
    /// The configuration this context was built from.
    public let configuration: TLSConfiguration

    let pointer: OpaquePointer
    let sessions: TLSSessionCache

    /// Builds the SSL_CTX: versions, ALPN, client identity, callbacks. Throws `TLSError.internalError`
    /// when OpenSSL refuses the configuration (an ALPN name longer than 255 bytes, bad versions).
    public init(
        configuration: TLSConfiguration = TLSConfiguration(), sessionCacheCapacity: Int = 256
    ) throws(TLSError) {
        guard let pointer = fw_ssl_ctx_new_client() else {
            throw TLSError.internalError(reason: "SSL_CTX_new failed: \(OpenSSLErrors.drain().text)")
        }
        self.configuration = configuration
        self.pointer = pointer
        self.sessions = TLSSessionCache(capacity: configuration.resumesSessions ? sessionCacheCapacity : 0)
        try configureVersions()
        try configureApplicationProtocols()
        try configureIdentity()
        SSL_CTX_sess_set_new_cb(pointer) { ssl, session in
            guard let ssl, let session, let engine = TLSEngine.owner(of: ssl) else { return 0 }
            return engine.storeSession(session) ? 1 : 0
        }
        SSL_CTX_set_cert_cb(pointer, { ssl, _ in
            guard let ssl, let engine = TLSEngine.owner(of: ssl) else { return 0 }
            return engine.clientCertificateRequested()
        }, nil)
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// Forgets the cached session for (host, port), e.g. after its server failed trust evaluation.
    public func removeSession(host: String, port: Int) {
        sessions.remove(TLSSessionCache.Key(host: host, port: port))
    }

    // MARK: Configuration steps

    private func configureVersions() throws(TLSError) {
        let minimum = configuration.minimumVersion
        let maximum = configuration.maximumVersion
        guard minimum <= maximum,
            fw_ssl_ctx_set_min_proto_version(pointer, minimum.openSSLValue) == 1,
            fw_ssl_ctx_set_max_proto_version(pointer, maximum.openSSLValue) == 1
        else {
            throw TLSError.internalError(reason: "unusable protocol versions \(minimum)...\(maximum)")
        }
    }

    private func configureApplicationProtocols() throws(TLSError) {
        guard !configuration.applicationProtocols.isEmpty else { return }
        var wire: [UInt8] = []
        for name in configuration.applicationProtocols {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw TLSError.internalError(reason: "ALPN protocol names need 1 to 255 bytes: \"\(name)\"")
            }
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        guard SSL_CTX_set_alpn_protos(pointer, wire, UInt32(wire.count)) == 0 else {
            throw TLSError.internalError(reason: "SSL_CTX_set_alpn_protos failed: \(OpenSSLErrors.drain().text)")
        }
    }

    private func configureIdentity() throws(TLSError) {
        guard let identity = configuration.clientIdentity else { return }
        let installed = withX509Stack(identity.intermediates) { chain in
            SSL_CTX_use_cert_and_key(
                pointer, identity.certificate.handle.pointer, identity.privateKey.pointer, chain, 1
            )
        }
        guard installed == 1 else {
            throw TLSError.internalError(reason: "cannot use the client identity: \(OpenSSLErrors.drain().text)")
        }
    }
}

// MARK: - TLSSessionCache

/// The newest resumable session per (host, port), at most `capacity` of them (the least recently
/// stored goes first); a capacity of 0 keeps none.
final class TLSSessionCache: Sendable {
    /// A cache key: the host as sent in SNI (lower-cased, no trailing dot) and the port.
    struct Key: Hashable, Sendable {
        let host: String
        let port: Int

        init(host: String, port: Int) {
            var host = host.lowercased()
            if host.hasSuffix(".") { host.removeLast() }
            self.host = host
            self.port = port
        }
    }

    private struct Entries {
        var sessions: [Key: (session: TLSSessionHandle, stamp: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let entries = Mutex(Entries())

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
    }

    func store(_ session: TLSSessionHandle, for key: Key) {
        guard capacity > 0 else { return }
        entries.withLock { entries in
            entries.clock += 1
            if entries.sessions[key] == nil, entries.sessions.count >= capacity,
                let oldest = entries.sessions.min(by: { $0.value.stamp < $1.value.stamp })?.key
            {
                entries.sessions[oldest] = nil
            }
            entries.sessions[key] = (session, entries.clock)
        }
    }

    func session(for key: Key) -> TLSSessionHandle? {
        entries.withLock { $0.sessions[key]?.session }
    }

    func remove(_ key: Key) {
        _ = entries.withLock { $0.sessions.removeValue(forKey: key) }
    }
}

/// One SSL_SESSION, owned.
///
/// `@unchecked Sendable`: a session is immutable once the handshake that made it has finished, its
/// reference count is atomic, and SSL_set_session may use one session from several threads.
final class TLSSessionHandle: @unchecked Sendable { // immutable session, atomic refcount (see above)
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        SSL_SESSION_free(pointer)
    }
}
