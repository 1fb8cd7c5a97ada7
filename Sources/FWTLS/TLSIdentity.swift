import CFWOpenSSL

// MARK: - TLSIdentity

/// A client identity for mutual TLS: a certificate, the intermediates to send with it, and its
/// private key.
public struct TLSIdentity: Sendable {
    /// The client certificate (the leaf).
    public let certificate: Certificate

    /// Certificates sent after the leaf so the server can build the chain.
    public private(set) var intermediates: [Certificate]

    let privateKey: PrivateKeyHandle

    // MARK: PEM

    /// An identity from certificates (leaf first) and a PEM private key (PKCS#8, traditional, or
    /// encrypted with `password`). Throws `decodingFailed`, `wrongPassword` or `keyMismatch`.
    public init(certificateChain: [Certificate], privateKeyPEM: [UInt8], password: String? = nil) throws(TLSError) {
        guard let leaf = certificateChain.first else {
            throw TLSError.decodingFailed(reason: "an identity needs at least one certificate")
        }
        let key = privateKeyPEM.withUnsafeBytes { pem in
            fw_pem_read_private_key(pem.baseAddress, Int32(clamping: pem.count), password)
        }
        guard let key else {
            let errors = OpenSSLErrors.drain()
            // Bytes, not String.contains(String): that overload lives in _StringProcessing, which would
            // add ~1 MB (and the regex parser) to every static binary that links FWTLS (issue 24).
            let marker = Array("ENCRYPTED".utf8)
            let encrypted = privateKeyPEM.indices.contains { privateKeyPEM[$0...].starts(with: marker) }
            if encrypted {
                throw TLSError.wrongPassword(reason: "cannot decrypt the private key: \(errors.text)")
            }
            throw TLSError.decodingFailed(reason: "not a PEM private key: \(errors.text)")
        }
        let handle = PrivateKeyHandle(taking: key)
        try self.init(leaf: leaf, intermediates: Array(certificateChain.dropFirst()), key: handle)
    }

    /// An identity from a PEM certificate chain file and a PEM private key file.
    public init(certificateChainPEMFile: String, privateKeyPEMFile: String, password: String? = nil) throws(TLSError) {
        try self.init(
            certificateChain: try Certificate.certificates(pemFile: certificateChainPEMFile),
            privateKeyPEM: try readFileBytes(atPath: privateKeyPEMFile),
            password: password
        )
    }

    // MARK: PKCS#12

    /// An identity from a PKCS#12 (.p12 / .pfx) blob. Throws `wrongPassword` when the MAC does not
    /// verify with `password`, `decodingFailed` when the blob is malformed or lacks a key or certificate.
    public init(pkcs12: [UInt8], password: String) throws(TLSError) {
        var key: OpaquePointer?
        var leaf: OpaquePointer?
        var chain: OpaquePointer?
        let status = pkcs12.withUnsafeBytes { der in
            fw_pkcs12_parse(der.baseAddress, Int32(clamping: der.count), password, &key, &leaf, &chain)
        }
        let errors = OpenSSLErrors.drain()
        switch Int(status) {
        case FW_PKCS12_OK:
            break
        case FW_PKCS12_WRONG_PASSWORD:
            throw TLSError.wrongPassword(reason: "the PKCS#12 MAC does not verify: \(errors.text)")
        case FW_PKCS12_INCOMPLETE:
            throw TLSError.decodingFailed(reason: "the PKCS#12 has no private key or no certificate")
        default:
            throw TLSError.decodingFailed(reason: "not a PKCS#12 blob: \(errors.text)")
        }
        guard let key, let leaf else { throw TLSError.internalError(reason: "PKCS12_parse returned nothing") }
        let keyHandle = PrivateKeyHandle(taking: key)
        defer { fw_x509_stack_free(chain) }
        defer { X509_free(leaf) }
        guard let certificate = Certificate(retaining: leaf) else {
            throw TLSError.decodingFailed(reason: "cannot encode the PKCS#12 certificate")
        }
        try self.init(leaf: certificate, intermediates: certificates(inStack: chain), key: keyHandle)
    }

    /// An identity from a PKCS#12 file.
    public init(pkcs12File path: String, password: String) throws(TLSError) {
        try self.init(pkcs12: try readFileBytes(atPath: path), password: password)
    }

    // MARK: Variants

    /// The same certificate and key, sent with `intermediates` instead of this identity's own (what
    /// `URLCredential(identity:certificates:persistence:)` asks for).
    public func replacingIntermediates(with intermediates: [Certificate]) -> TLSIdentity {
        var copy = self
        copy.intermediates = intermediates
        return copy
    }

    private init(leaf: Certificate, intermediates: [Certificate], key: PrivateKeyHandle) throws(TLSError) {
        guard fw_x509_matches_private_key(leaf.handle.pointer, key.pointer) == 1 else {
            throw TLSError.keyMismatch(reason: "the private key does not belong to \(leaf.subjectText)")
        }
        self.certificate = leaf
        self.intermediates = intermediates
        self.privateKey = key
    }
}
