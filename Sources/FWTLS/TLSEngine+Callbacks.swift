import CFWOpenSSL

// MARK: - TLSEngine: callbacks from OpenSSL
//
// OpenSSL calls these on the engine's thread, inside SSL_do_handshake / SSL_read: the engine is found from
// its SSL's app data; a resumable session is stored for the next connection to the same host and port; a
// server's certificate request pauses the handshake until the owner answers (`provideClientIdentity(_:)`).

extension TLSEngine {
    /// The engine an SSL belongs to.
    static func owner(of ssl: OpaquePointer) -> TLSEngine? {
        guard let pointer = fw_ssl_get_app_data(ssl) else { return nil }
        return Unmanaged<TLSEngine>.fromOpaque(pointer).takeUnretainedValue()
    }

    var sessionKey: TLSSessionKey {
        TLSSessionKey(host: serverName, port: port)
    }

    /// OpenSSL made a resumable session: keep it for the next connection. True when it was taken.
    func storeSession(_ session: OpaquePointer) -> Bool {
        guard storesSessions, let store = context.sessionStore, SSL_SESSION_is_resumable(session) == 1 else {
            return false
        }
        store.store(TLSSession(taking: session), for: sessionKey)
        return true
    }

    /// The server asked for a client certificate: 1 to continue, -1 to pause the handshake until the
    /// owner answers, 0 to fail it.
    func clientCertificateRequested() -> Int32 {
        certificateWasRequested = true
        if context.configuration.clientIdentity != nil {
            sentCertificate = true
            return 1
        }
        switch identityAnswer {
        case .undecided:
            return -1
        case .answered(nil):
            return 1
        case .answered(let identity?):
            let installed = withX509Stack(identity.intermediates) { chain in
                SSL_use_cert_and_key(
                    sslPointer, identity.certificate.handle.pointer, identity.privateKey.pointer, chain, 1
                )
            }
            sentCertificate = installed == 1
            return installed == 1 ? 1 : 0
        }
    }

    /// Stops caching this connection's sessions and forgets the one cached for its host and port: call
    /// it when the server failed trust evaluation.
    public func discardSession() {
        storesSessions = false
        context.sessionStore?.removeSession(for: sessionKey)
    }
}
