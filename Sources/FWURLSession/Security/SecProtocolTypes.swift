// Security's SecProtocolTypes: the cipher suites `URLSessionTaskTransactionMetrics` reports, with
// FoundationNetworking's cases and Apple's raw values (the IANA TLS Cipher Suites registry numbers), and
// the bridge from FWTLS's negotiated values. `tls_protocol_version_t` itself is in
// TLSProtocolVersion.swift.

import FWTLS

// MARK: - tls_ciphersuite_t

/// A TLS cipher suite, as Apple's Security framework and FoundationNetworking spell it. The raw value is
/// the suite's IANA number; the case name is its registry name without the `TLS_` prefix.
public enum tls_ciphersuite_t: UInt16, Sendable {
    case RSA_WITH_3DES_EDE_CBC_SHA = 0x000A
    case RSA_WITH_AES_128_CBC_SHA = 0x002F
    case RSA_WITH_AES_256_CBC_SHA = 0x0035
    case RSA_WITH_AES_128_CBC_SHA256 = 0x003C
    case RSA_WITH_AES_256_CBC_SHA256 = 0x003D
    case RSA_WITH_AES_128_GCM_SHA256 = 0x009C
    case RSA_WITH_AES_256_GCM_SHA384 = 0x009D
    case AES_128_GCM_SHA256 = 0x1301
    case AES_256_GCM_SHA384 = 0x1302
    case CHACHA20_POLY1305_SHA256 = 0x1303
    case ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA = 0xC008
    case ECDHE_ECDSA_WITH_AES_128_CBC_SHA = 0xC009
    case ECDHE_ECDSA_WITH_AES_256_CBC_SHA = 0xC00A
    case ECDHE_RSA_WITH_3DES_EDE_CBC_SHA = 0xC012
    case ECDHE_RSA_WITH_AES_128_CBC_SHA = 0xC013
    case ECDHE_RSA_WITH_AES_256_CBC_SHA = 0xC014
    case ECDHE_ECDSA_WITH_AES_128_CBC_SHA256 = 0xC023
    case ECDHE_ECDSA_WITH_AES_256_CBC_SHA384 = 0xC024
    case ECDHE_RSA_WITH_AES_128_CBC_SHA256 = 0xC027
    case ECDHE_RSA_WITH_AES_256_CBC_SHA384 = 0xC028
    case ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 = 0xC02B
    case ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 = 0xC02C
    case ECDHE_RSA_WITH_AES_128_GCM_SHA256 = 0xC02F
    case ECDHE_RSA_WITH_AES_256_GCM_SHA384 = 0xC030
    case ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 = 0xCCA8
    case ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 = 0xCCA9
}

// MARK: - From FWTLS

extension tls_ciphersuite_t {
    /// The case of a negotiated suite; nil for a suite Apple's enum has no case for (e.g. TLS 1.3's
    /// TLS_AES_128_CCM_SHA256).
    init?(_ suite: TLSCipherSuite) {
        self.init(rawValue: suite.id)
    }
}

extension tls_protocol_version_t {
    /// The case of a negotiated TLS version.
    init?(_ version: TLSVersion) {
        guard let match = [Self.TLSv10, .TLSv11, .TLSv12, .TLSv13].first(where: { $0.tlsVersion == version }) else {
            return nil
        }
        self = match
    }
}
