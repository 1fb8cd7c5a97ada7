import CFWOpenSSL

// MARK: - TLSCipherSuite

/// A negotiated cipher suite: its IANA number (what Apple's `tls_ciphersuite_t` raw values are) and its
/// names.
public struct TLSCipherSuite: Sendable, Hashable, CustomStringConvertible {
    /// The two-byte IANA TLS Cipher Suites registry value, e.g. 0x1302 for TLS_AES_256_GCM_SHA384.
    public let id: UInt16

    /// OpenSSL's name, as curl prints it: "TLS_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES128-GCM-SHA256".
    public let name: String

    /// The registry's (RFC) name, e.g. "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"; nil when OpenSSL does
    /// not know one.
    public let standardName: String?

    /// A suite from its parts (the engine reads them from OpenSSL).
    public init(id: UInt16, name: String, standardName: String?) {
        self.id = id
        self.name = name
        self.standardName = standardName
    }

    /// The suite of an SSL_CIPHER.
    init(_ cipher: OpaquePointer) {
        let name = SSL_CIPHER_get_name(cipher).map { String(cString: $0) } ?? ""
        let standardName = SSL_CIPHER_standard_name(cipher).map { String(cString: $0) }
        self.init(id: SSL_CIPHER_get_protocol_id(cipher), name: name, standardName: standardName)
    }

    /// OpenSSL's name and the IANA number, e.g. "TLS_AES_256_GCM_SHA384 (0x1302)".
    public var description: String {
        let hex = String(id, radix: 16, uppercase: true)
        return "\(name) (0x\(String(repeating: "0", count: 4 - hex.count))\(hex))"
    }
}
