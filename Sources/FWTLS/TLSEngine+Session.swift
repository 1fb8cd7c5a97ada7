import CFWOpenSSL

// MARK: - What the handshake negotiated

extension TLSEngine {
    /// The server's chain as it sent it, leaf first (also after resumption: the session remembers it).
    /// Known once the server's Certificate message was processed, so already while the engine awaits a
    /// client identity; empty before.
    public var peerCertificateChain: [Certificate] {
        certificates(inStack: SSL_get_peer_cert_chain(sslPointer))
    }

    /// The negotiated protocol version (`name` is OpenSSL's text, e.g. "TLSv1.3"); nil before the
    /// handshake has finished.
    public var negotiatedVersion: TLSVersion? {
        guard SSL_is_init_finished(sslPointer) == 1 else { return nil }
        let version = SSL_version(sslPointer)
        return [TLSVersion.v1_0, .v1_1, .v1_2, .v1_3].first { $0.openSSLValue == version }
    }

    /// The negotiated cipher suite's OpenSSL name (e.g. "TLS_AES_256_GCM_SHA384"); nil before the
    /// handshake has finished.
    public var cipher: String? {
        guard SSL_is_init_finished(sslPointer) == 1, let cipher = SSL_get_current_cipher(sslPointer),
            let name = SSL_CIPHER_get_name(cipher)
        else { return nil }
        return String(cString: name)
    }

    /// The negotiated cipher suite (IANA number and names); nil before the handshake has finished.
    public var cipherSuite: TLSCipherSuite? {
        guard SSL_is_init_finished(sslPointer) == 1, let cipher = SSL_get_current_cipher(sslPointer) else {
            return nil
        }
        return TLSCipherSuite(cipher)
    }

    /// The ALPN protocol the server selected (e.g. "http/1.1"), or nil.
    public var alpn: String? {
        takeAllocatedString(fw_ssl_copy_alpn(sslPointer))
    }

    /// True when the handshake resumed a cached session (no certificate exchange took place).
    public var isResumed: Bool {
        SSL_session_reused(sslPointer) == 1
    }

    /// The DER OCSP response the server stapled, if it was asked for one and sent one.
    public var stapledOCSPResponse: [UInt8]? {
        var bytes: UnsafePointer<UInt8>?
        let length = fw_ssl_ocsp_response(sslPointer, &bytes)
        guard let bytes, length > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// The SCTs the server presented (TLS extension, certificate, stapled OCSP) in the list encoding of
    /// `ServerTrust.signedCertificateTimestampList`, when it was asked for them and sent some.
    public var signedCertificateTimestampList: [UInt8]? {
        copyAllocatedBytes { fw_ssl_peer_sct_list(sslPointer, &$0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The DER distinguished names of the certificate authorities the server accepts for a client
    /// certificate (from its CertificateRequest; URLProtectionSpace's `distinguishedNames`).
    public var acceptableClientCertificateAuthorities: [[UInt8]] {
        (0..<fw_ssl_client_ca_count(sslPointer)).compactMap { index in
            copyAllocatedBytes { fw_ssl_client_ca_der(sslPointer, index, &$0) }
        }
    }

    /// The trust to evaluate for this connection: the peer chain, `serverName`, the configuration's
    /// anchors, the stapled OCSP response, and `verificationTime` (nil: now). Complete after the
    /// handshake, and already when it returned `.clientIdentityRequested` (evaluate the server before
    /// choosing whether to identify to it).
    public func makeServerTrust(verificationTime: Int64? = nil) -> ServerTrust {
        ServerTrust(
            certificateChain: peerCertificateChain,
            host: serverName,
            anchors: context.configuration.trustRoots,
            verificationTime: verificationTime,
            stapledOCSPResponse: stapledOCSPResponse,
            port: port,
            signedCertificateTimestampList: signedCertificateTimestampList
        )
    }
}
