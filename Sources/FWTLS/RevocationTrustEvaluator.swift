import CFWOpenSSL

// MARK: - RevocationTrustEvaluator

/// Checks the leaf's revocation status in the OCSP response the server stapled (ask for one with
/// `TLSConfiguration.requestsOCSPStapling`), after the default validation unless told otherwise.
///
/// A response that is signed by the leaf's issuer (or its delegated responder) and says "revoked"
/// fails with `TrustError.revoked`. "Good" within its validity window passes. No response, or one that
/// cannot be used (malformed, unverifiable signature, stale, "unknown"), passes unless
/// `requiresStapledResponse` is set, which turns it into `TrustError.untrusted`. No network fetch is
/// ever made.
public struct RevocationTrustEvaluator: TrustEvaluator {
    /// Whether the chain must also validate against the anchors.
    public let performDefaultValidation: Bool
    /// Whether the leaf must identify the host.
    public let validateHost: Bool
    /// Whether a missing or unusable staple fails the evaluation (hard-fail).
    public let requiresStapledResponse: Bool

    /// Seconds of clock skew tolerated around the response's thisUpdate and nextUpdate.
    static let allowedClockSkew: Int64 = 300

    /// A revocation evaluator; soft-fail (no staple passes) by default.
    public init(
        performDefaultValidation: Bool = true, validateHost: Bool = true, requiresStapledResponse: Bool = false
    ) {
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.requiresStapledResponse = requiresStapledResponse
    }

    /// Validates (as configured), then applies the stapled OCSP response.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        try trust.performValidation(defaultValidation: performDefaultValidation, validateHost: validateHost)
        let unusable: String
        switch Self.status(of: trust) {
        case .good:
            return
        case .revoked(let reason):
            throw TrustError.revoked(reason: reason)
        case .unusable(let why):
            unusable = why
        }
        if requiresStapledResponse {
            throw TrustError.untrusted(reason: "no usable stapled OCSP response for \(trust.host): \(unusable)")
        }
    }

    // MARK: Reading the response

    private enum Status {
        case good
        case revoked(String)
        case unusable(String)
    }

    private static func status(of trust: ServerTrust) -> Status {
        guard let response = trust.stapledOCSPResponse else { return .unusable("the server stapled none") }
        guard let leaf = trust.certificateChain.first else { return .unusable("no certificate") }
        let issuer = trust.certificateChain.dropFirst().first
            ?? trust.anchors.certificates.first { $0.subjectText == leaf.issuerText }
        guard let issuer else { return .unusable("the leaf's issuer is not known") }
        var result = Int(FW_OCSP_BAD_SIGNATURE)
        var status = fw_ocsp_status()
        for entry in trust.anchors.verificationStores where result == FW_OCSP_BAD_SIGNATURE {
            result = Int(withX509Stack(trust.certificateChain) { chain in
                response.withUnsafeBufferPointer { der in
                    fw_ocsp_check(
                        der.baseAddress, der.count, leaf.handle.pointer, issuer.handle.pointer, chain,
                        entry.store.pointer, &status
                    )
                }
            })
        }
        let time = trust.effectiveTime
        switch result {
        case FW_OCSP_REVOKED:
            let why = String(cString: fw_ocsp_reason_text(status.revocation_reason))
            return .revoked("\(leaf.subjectSummary) was revoked (\(why)) at \(status.revocation_time) per OCSP")
        case FW_OCSP_GOOD where status.this_update > time + allowedClockSkew:
            return .unusable("the OCSP response is not valid yet")
        case FW_OCSP_GOOD where status.has_next_update == 1 && status.next_update + allowedClockSkew < time:
            return .unusable("the OCSP response is stale")
        case FW_OCSP_GOOD:
            return .good
        case FW_OCSP_UNKNOWN:
            return .unusable("the responder does not know the certificate")
        case FW_OCSP_BAD_SIGNATURE:
            return .unusable("the OCSP response's signature does not verify")
        case FW_OCSP_NOT_SUCCESSFUL:
            return .unusable("the OCSP responder reported an error")
        case FW_OCSP_NO_STATUS:
            return .unusable("the OCSP response does not cover the leaf")
        default:
            return .unusable("the OCSP response is malformed")
        }
    }
}
