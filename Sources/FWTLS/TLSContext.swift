import CFWOpenSSL

// MARK: - TLSContext

/// An OpenSSL SSL_CTX built from one `TLSConfiguration`, created once and shared by every connection
/// that uses the configuration, with the session store its engines resume from.
///
/// With a `sessionStore` (and `resumesSessions` in the configuration) a new `TLSEngine` offers the
/// session stored for its host and port, and every resumable session the server hands out is stored:
/// TLS 1.2 session ids and tickets when the handshake ends, TLS 1.3 tickets when they arrive after it
/// (so read some application data before closing a connection whose session you want to reuse).
/// Without a store every connection makes a full handshake.
///
/// `@unchecked Sendable`: `pointer` (the SSL_CTX) is configured completely in `init` and only read
/// afterwards (SSL_new), which OpenSSL supports from any thread; the store is Sendable.
public final class TLSContext: @unchecked Sendable { // see the doc comment: configured in init, then read-only
    /// The configuration this context was built from.
    public let configuration: TLSConfiguration

    /// Where the engines of this context find and keep resumable sessions; nil when they keep none
    /// (no store was given, the configuration turns resumption off, or it asks for SCTs: a resumed
    /// session brings no Certificate Transparency SCTs to judge).
    public let sessionStore: (any TLSSessionStore)?

    let pointer: OpaquePointer

    /// Builds the SSL_CTX: versions, ALPN, client identity, callbacks. Throws `TLSError.internalError`
    /// when OpenSSL refuses the configuration (an ALPN name longer than 255 bytes, bad versions).
    public init(
        configuration: TLSConfiguration = TLSConfiguration(), sessionStore: (any TLSSessionStore)? = nil
    ) throws(TLSError) {
        guard let pointer = fw_ssl_ctx_new_client() else {
            throw TLSError.internalError(reason: "SSL_CTX_new failed: \(OpenSSLErrors.drain().text)")
        }
        self.configuration = configuration
        self.pointer = pointer
        let resumes = configuration.resumesSessions && !configuration.requestsSignedCertificateTimestamps
        self.sessionStore = resumes ? sessionStore : nil
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
        sessionStore?.removeSession(for: TLSSessionKey(host: host, port: port))
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
