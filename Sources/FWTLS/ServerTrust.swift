import CFWOpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - ServerTrust

/// Everything needed to decide whether to trust a server: its chain, the host it must identify, the
/// anchors, the time, and the stapled OCSP response (the FWTLS counterpart of Security's SecTrust).
///
/// A value: evaluators and the session layer copy and adjust it (other anchors, another time).
public struct ServerTrust: Sendable {
    /// The chain the server sent, leaf first.
    public var certificateChain: [Certificate]

    /// The host name or IP literal the leaf must identify.
    public var host: String

    /// The anchors the chain must lead to.
    public var anchors: TrustRoots

    /// The time to evaluate at, in seconds since 1970; nil means now.
    public var verificationTime: Int64?

    /// The DER OCSP response the server stapled, if any.
    public var stapledOCSPResponse: [UInt8]?

    /// The server's port, when known (pin violation reports carry it).
    public var port: Int?

    /// The SCTs the server presented, in FWTLS's list encoding (per SCT: its source, 1 byte; its length,
    /// 2 bytes; the SCT as RFC 6962 encodes it). Read them with `signedCertificateTimestamps(validatedAgainst:)`.
    public var signedCertificateTimestampList: [UInt8]?

    /// A trust to evaluate.
    public init(
        certificateChain: [Certificate],
        host: String,
        anchors: TrustRoots,
        verificationTime: Int64? = nil,
        stapledOCSPResponse: [UInt8]? = nil,
        port: Int? = nil,
        signedCertificateTimestampList: [UInt8]? = nil
    ) {
        self.certificateChain = certificateChain
        self.host = host
        self.anchors = anchors
        self.verificationTime = verificationTime
        self.stapledOCSPResponse = stapledOCSPResponse
        self.port = port
        self.signedCertificateTimestampList = signedCertificateTimestampList
    }

    /// The time evaluation uses: `verificationTime`, or the current time.
    public var effectiveTime: Int64 {
        verificationTime ?? Int64(time(nil))
    }

    // MARK: Building blocks

    /// Verifies the chain to an anchor for TLS server use at `effectiveTime` (signatures, validity
    /// periods, basic constraints, key usage), using the certificates after the leaf as untrusted
    /// intermediates. Does not look at the host.
    public func validateChain() throws(TrustError) {
        guard let leaf = certificateChain.first else {
            throw TrustError.untrusted(reason: "the server sent no certificate")
        }
        let stores = anchors.verificationStores
        guard !stores.isEmpty else {
            throw TrustError.unknownRoot(reason: anchors.missingAnchorsReason)
        }
        var firstFailure: (code: Int32, depth: Int32)?
        for entry in stores {
            var depth: Int32 = 0
            let code = withX509Stack(certificateChain.dropFirst()) { untrusted in
                fw_x509_verify(
                    entry.store.pointer, leaf.handle.pointer, untrusted, entry.partialChain ? 1 : 0, 1,
                    effectiveTime, &depth
                )
            }
            if code == X509_V_OK { return }
            if firstFailure == nil { firstFailure = (code, depth) }
        }
        guard let firstFailure else { return }
        throw Self.trustError(code: firstFailure.code, depth: Int(firstFailure.depth), chain: certificateChain)
    }

    /// Checks that the leaf identifies `host` (RFC 6125, see `HostnameVerification`).
    public func validateHost() throws(TrustError) {
        guard let leaf = certificateChain.first else {
            throw TrustError.untrusted(reason: "the server sent no certificate")
        }
        guard leaf.matches(host: host) else {
            let names = leaf.subjectAlternativeNames
            let described = names.isEmpty ? "CN=\(leaf.commonName ?? "none")" : names.joined(separator: ", ")
            throw TrustError.hostnameMismatch(reason: "\(leaf.subjectSummary) is not valid for \(host) (\(described))")
        }
    }

    // MARK: Verification codes

    static func trustError(code: Int32, depth: Int, chain: [Certificate]) -> TrustError {
        let text = String(cString: fw_x509_verify_error_text(code))
        let subject = depth < chain.count ? chain[depth].subjectSummary : "the chain"
        let reason = "\(text) (depth \(depth), \(subject))"
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .expired(reason: reason)
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .notYetValid(reason: reason)
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .unknownRoot(reason: reason)
        default:
            return .untrusted(reason: reason)
        }
    }
}
