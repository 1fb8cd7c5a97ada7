// URLError+TLS: the URLError codes of TLS and trust failures. FWTLS knows nothing of URLError
// (ARCHITECTURE.md: the session layer maps every failure); its errors answer predicates, and this file
// turns them into the codes a URLSession user expects.
//
// The codes are `URLError.Code`'s members, whose raw values are Apple's (-1201 bad date, -1202
// untrusted, -1203 unknown root, -1204 not yet valid, -1205 client certificate rejected, -1206
// required). Linux Foundation's `NSURLErrorServerCertificate…` and `NSURLErrorClientCertificate…`
// constants are one off those values (-1202 for -1201, ...): never compare with them.

import Foundation
import FWTLS

// MARK: - URLError.Code from TLS failures

extension URLError.Code {
    /// The code for a failure of the TLS layer: `networkConnectionLost` for a connection cut without
    /// close_notify, `clientCertificateRequired` and `clientCertificateRejected` for the server's refusal
    /// of the client, `unknown` for local decoding problems (a key, a certificate, a password, a file),
    /// and `secureConnectionFailed` for every handshake, protocol, version and internal failure.
    init(_ error: TLSError) {
        if error.isTruncated {
            self = .networkConnectionLost
        } else if error.isClientCertificateRequired {
            self = .clientCertificateRequired
        } else if error.isClientCertificateRejected {
            self = .clientCertificateRejected
        } else if error.isDecodingFailure || error.isWrongPassword || error.isKeyMismatch || error.isFileUnreadable {
            self = .unknown
        } else {
            self = .secureConnectionFailed
        }
    }

    /// The code for a server whose chain was not trusted: `serverCertificateHasBadDate` when a
    /// certificate expired, `serverCertificateNotYetValid`, `serverCertificateHasUnknownRoot`, and
    /// `serverCertificateUntrusted` for every other reason (hostname mismatch, pins, revocation, a
    /// missing evaluator, a malformed pin).
    init(_ error: TrustError) {
        if error.isExpired {
            self = .serverCertificateHasBadDate
        } else if error.isNotYetValid {
            self = .serverCertificateNotYetValid
        } else if error.isUnknownRoot {
            self = .serverCertificateHasUnknownRoot
        } else {
            self = .serverCertificateUntrusted
        }
    }

    /// The code for the error under a failed secure connection: a `TLSError` or `TrustError` by the
    /// rules above, `secureConnectionFailed` for anything else (or nothing).
    init(secureConnectionFailure underlying: (any Error)?) {
        if let tls = underlying as? TLSError {
            self.init(tls)
        } else if let trust = underlying as? TrustError {
            self.init(trust)
        } else {
            self = .secureConnectionFailed
        }
    }
}
