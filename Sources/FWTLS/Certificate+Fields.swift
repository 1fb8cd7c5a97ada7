import CFWOpenSSL

// MARK: - Names

extension Certificate {
    /// A short name for people: the subject's common name, else the first subjectAltName, else the
    /// subject text (what Security's SecCertificateCopySubjectSummary returns).
    public var subjectSummary: String {
        if let commonName { return commonName }
        if let first = dnsNames.first { return first }
        if let first = ipAddresses.first { return IPAddressText.format(first) }
        return subjectText
    }

    /// The subject as one line, e.g. "O=FWNetworking Test, CN=localhost".
    public var subjectText: String {
        takeAllocatedString(fw_x509_subject_text(handle.pointer)) ?? ""
    }

    /// The issuer as one line, e.g. "O=FWNetworking Test, CN=FWNetworking Test Intermediate CA".
    public var issuerText: String {
        takeAllocatedString(fw_x509_issuer_text(handle.pointer)) ?? ""
    }

    /// The http:// URIs of the certificate's CRL distribution points extension (its fullName URIs; ldap,
    /// https and relative names are left out), in the order the certificate lists them.
    public var crlDistributionPoints: [String] {
        guard let text = takeAllocatedString(fw_x509_crl_distribution_points(handle.pointer)) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// The subject's last (most specific) common name, if any.
    public var commonName: String? {
        copyAllocatedBytes { fw_x509_common_name(handle.pointer, &$0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The DNS names of the subjectAltName extension, as written (wildcards included).
    public var dnsNames: [String] {
        alternativeNames.compactMap { if case .dns(let name) = $0 { name } else { nil } }
    }

    /// The IP addresses of the subjectAltName extension: 4 bytes for IPv4, 16 for IPv6.
    public var ipAddresses: [[UInt8]] {
        alternativeNames.compactMap { if case .ip(let bytes) = $0 { bytes } else { nil } }
    }

    /// The DNS and IP subjectAltNames as text in certificate order, e.g. ["DNS:localhost", "IP:::1"].
    public var subjectAlternativeNames: [String] {
        alternativeNames.map {
            switch $0 {
            case .dns(let name): "DNS:\(name)"
            case .ip(let bytes): "IP:\(IPAddressText.format(bytes))"
            }
        }
    }

    /// True when the certificate has a subjectAltName extension with at least one DNS or IP entry.
    var hasAlternativeNames: Bool { !alternativeNames.isEmpty }

    private enum AlternativeName {
        case dns(String)
        case ip([UInt8])
    }

    private var alternativeNames: [AlternativeName] {
        guard let names = fw_x509_alt_names(handle.pointer) else { return [] }
        defer { fw_alt_names_free(names) }
        var result: [AlternativeName] = []
        for index in 0..<fw_alt_names_count(names) {
            var bytes: UnsafePointer<UInt8>?
            var length: Int32 = 0
            let kind = fw_alt_names_get(names, index, &bytes, &length)
            guard let bytes, length >= 0 else { continue }
            let value = Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
            switch Int(kind) {
            case FW_SAN_DNS: result.append(.dns(String(decoding: value, as: UTF8.self)))
            case FW_SAN_IP: result.append(.ip(value))
            default: continue
            }
        }
        return result
    }
}

// MARK: - Validity, serial, signature

extension Certificate {
    /// The start of the validity period, in seconds since 1970 (UTC).
    public var notBefore: Int64 { validity.notBefore }

    /// The end of the validity period, in seconds since 1970 (UTC).
    public var notAfter: Int64 { validity.notAfter }

    private var validity: (notBefore: Int64, notAfter: Int64) {
        var notBefore: Int64 = 0
        var notAfter: Int64 = 0
        _ = fw_x509_validity(handle.pointer, &notBefore, &notAfter)
        return (notBefore, notAfter)
    }

    /// The serial number as big-endian bytes without leading zeros.
    public var serialNumber: [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let length = fw_x509_serial(handle.pointer, &buffer, Int32(buffer.count))
        return length > 0 ? Array(buffer[0..<Int(length)]) : [0]
    }

    /// The serial number in upper-case hex, e.g. "1000".
    public var serialNumberHex: String {
        Hex.upper(serialNumber)
    }

    /// True when the certificate is issued by itself and its signature verifies with its own key.
    public var isSelfSigned: Bool {
        fw_x509_is_self_signed(handle.pointer) == 1
    }

    /// SHA-256 of the DER encoding (the certificate's fingerprint).
    public var sha256Fingerprint: [UInt8] {
        Digest.sha256.hash(derBytes)
    }
}

// MARK: - Keys and pins

extension Certificate {
    /// The subject's public key.
    public var publicKey: PublicKey {
        let spki = copyAllocatedBytes { fw_x509_spki_der(handle.pointer, &$0) } ?? []
        var raw: UnsafePointer<UInt8>?
        let rawLength = fw_x509_public_key_bytes(handle.pointer, &raw)
        let external = raw.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(rawLength, 0)))) } ?? []
        var bits: Int32 = 0
        let algorithm = String(cString: fw_x509_public_key_algorithm(handle.pointer, &bits))
        return PublicKey(spkiDER: spki, externalRepresentation: external, algorithm: algorithm, bits: Int(bits))
    }

    /// The DER of the SubjectPublicKeyInfo (algorithm + key), what SPKI pins hash.
    public var spkiDER: [UInt8] { publicKey.spkiDER }

    /// SHA-256 of the SubjectPublicKeyInfo DER (32 bytes).
    public var spkiSHA256: [UInt8] { publicKey.spkiSHA256 }

    /// The SPKI pin in curl's `--pinnedpubkey` form: "sha256//" + base64 of `spkiSHA256`.
    public var spkiPin: String { publicKey.spkiPin }
}

// MARK: - Text helpers

/// Lower- and upper-case hex of byte strings.
enum Hex {
    static func upper(_ bytes: [UInt8]) -> String {
        text(bytes, digits: "0123456789ABCDEF")
    }

    static func lower(_ bytes: [UInt8]) -> String {
        text(bytes, digits: "0123456789abcdef")
    }

    private static func text(_ bytes: [UInt8], digits: StaticString) -> String {
        let digits = digits.utf8Start
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
