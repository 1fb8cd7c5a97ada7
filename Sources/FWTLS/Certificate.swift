import CFWOpenSSL

// MARK: - Certificate

/// An X.509 certificate: a value over its DER bytes, decoded once.
///
/// Equality and hashing use the DER bytes. The field accessors (subject, SANs, validity, keys, pins)
/// are in `Certificate+Fields.swift`.
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding, exactly as received or loaded.
    public let derBytes: [UInt8]

    let handle: X509Handle

    /// Decodes one DER-encoded certificate. Throws `TLSError.decodingFailed` when the bytes are not
    /// exactly one certificate.
    public init(derBytes: [UInt8]) throws(TLSError) {
        let decoded: OpaquePointer? = derBytes.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let pointer = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                X509_free(pointer)
                return nil
            }
            return pointer
        }
        guard let decoded else {
            let errors = OpenSSLErrors.drain()
            throw TLSError.decodingFailed(reason: "not a DER certificate: \(errors.text)")
        }
        self.derBytes = derBytes
        self.handle = X509Handle(taking: decoded)
    }

    /// Takes a new reference to an X509 OpenSSL owns (a peer chain entry, a PKCS#12 member).
    init?(retaining pointer: OpaquePointer) {
        guard let der = copyAllocatedBytes({ fw_x509_der(pointer, &$0) }) else { return nil }
        self.derBytes = der
        self.handle = X509Handle(retaining: pointer)
    }

    // MARK: PEM

    /// Every certificate of a PEM text, in order (a chain file, a CA bundle). Throws
    /// `TLSError.decodingFailed` when there is none.
    public static func certificates(pemEncoded pem: [UInt8]) throws(TLSError) -> [Certificate] {
        let stack = pem.withUnsafeBytes { fw_pem_read_certificates($0.baseAddress, Int32(clamping: $0.count)) }
        guard let stack else { throw TLSError.internalError(reason: "cannot allocate a certificate stack") }
        defer { fw_x509_stack_free(stack) }
        let result = FWTLS.certificates(inStack: stack)
        guard !result.isEmpty else { throw TLSError.decodingFailed(reason: "no PEM certificate found") }
        return result
    }

    /// Every certificate of a PEM text, in order.
    public static func certificates(pemEncoded pem: String) throws(TLSError) -> [Certificate] {
        try certificates(pemEncoded: Array(pem.utf8))
    }

    /// Every certificate of a PEM file, in order.
    public static func certificates(pemFile path: String) throws(TLSError) -> [Certificate] {
        try certificates(pemEncoded: readFileBytes(atPath: path))
    }

    /// The first certificate of a PEM text.
    public init(pemEncoded pem: String) throws(TLSError) {
        self = try Certificate.certificates(pemEncoded: pem)[0]
    }

    // MARK: Hashable, description

    /// Equal when the DER encodings are equal.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.derBytes == rhs.derBytes
    }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(derBytes)
    }

    /// The subject, issuer and validity in one line.
    public var description: String {
        "Certificate(subject: \(subjectText), issuer: \(issuerText), notAfter: \(notAfter))"
    }
}
