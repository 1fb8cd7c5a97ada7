import FWTLS

// MARK: - tls_protocol_version_t

/// A TLS protocol version, as Apple's Security framework and FoundationNetworking spell it.
public enum tls_protocol_version_t: UInt16, Sendable {
    case TLSv10 = 0x0301
    case TLSv11 = 0x0302
    case TLSv12 = 0x0303
    case TLSv13 = 0x0304
    case DTLSv10 = 0xFEFF
    case DTLSv12 = 0xFEFD

    /// The FWTLS version, or nil for DTLS (not used over TCP).
    var tlsVersion: TLSVersion? {
        switch self {
        case .TLSv10: .v1_0
        case .TLSv11: .v1_1
        case .TLSv12: .v1_2
        case .TLSv13: .v1_3
        case .DTLSv10, .DTLSv12: nil
        }
    }
}
