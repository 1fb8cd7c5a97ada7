import CFWOpenSSL

// MARK: - Verified chain and revocation lists

/// Which certificates of a chain a verification checks against certificate revocation lists.
public struct RevocationListCheck: Sendable, Hashable {
    let flag: Int32

    /// No CRL check (the lists, if any, are ignored).
    public static let none = RevocationListCheck(flag: Int32(FW_CRL_CHECK_NONE))
    /// The leaf must be covered by a list and not revoked by it (curl's `--crlfile`).
    public static let leaf = RevocationListCheck(flag: Int32(FW_CRL_CHECK_LEAF))
    /// Every certificate below the anchor must be covered by a list and not revoked by it.
    public static let wholeChain = RevocationListCheck(flag: Int32(FW_CRL_CHECK_ALL))
}

extension ServerTrust {
    /// Verifies the chain as `validateChain()` does and returns the chain the verification built, leaf to
    /// anchor (the root is there even when the server did not send it). With `revocationLists` and a
    /// `check` other than `.none`, the certificates it names must be covered by a list: a revoked one
    /// throws `TrustError.revoked`, one no list covers throws `TrustError.untrusted`.
    public func verifiedChain(
        revocationLists: CertificateRevocationLists? = nil, check: RevocationListCheck = .none
    ) throws(TrustError) -> [Certificate] {
        guard let leaf = certificateChain.first else {
            throw TrustError.untrusted(reason: "the server sent no certificate")
        }
        let stores = anchors.verificationStores
        guard !stores.isEmpty else {
            throw TrustError.unknownRoot(reason: "no trust anchors (\(anchors))")
        }
        let crlCheck = revocationLists == nil ? RevocationListCheck.none : check
        var firstFailure: (code: Int32, depth: Int32)?
        for entry in stores {
            var depth: Int32 = 0
            var built: OpaquePointer?
            let code = withX509Stack(certificateChain.dropFirst()) { untrusted in
                fw_x509_verify_chain(
                    entry.store.pointer, leaf.handle.pointer, untrusted, entry.partialChain ? 1 : 0, effectiveTime,
                    revocationLists?.handle.pointer, crlCheck.flag, &depth, &built
                )
            }
            if code == X509_V_OK {
                defer { fw_x509_stack_free_all(built) }
                return certificates(inStack: built)
            }
            if firstFailure == nil { firstFailure = (code, depth) }
        }
        guard let firstFailure else { return certificateChain }
        let depth = Int(firstFailure.depth)
        let subject = depth < certificateChain.count ? certificateChain[depth].subjectSummary : "the chain"
        switch firstFailure.code {
        case X509_V_ERR_CERT_REVOKED:
            throw TrustError.revoked(reason: "\(subject) (depth \(depth)) is revoked by a certificate revocation list")
        case X509_V_ERR_UNABLE_TO_GET_CRL:
            throw TrustError.untrusted(reason: "no certificate revocation list covers \(subject) (depth \(depth))")
        default:
            throw Self.trustError(code: firstFailure.code, depth: depth, chain: certificateChain)
        }
    }
}

// MARK: - RevocationListTrustEvaluator

/// Checks the chain against certificate revocation lists loaded from files (curl's `--crlfile`), after
/// verifying it to the anchors, and the host unless told otherwise.
///
/// A certificate a list revokes fails with `TrustError.revoked`. A certificate no list covers (no list
/// from its issuer, or only stale ones) fails with `TrustError.untrusted` when `requiresCoverage`
/// (hard-fail), and passes on the plain verification otherwise (soft-fail).
public struct RevocationListTrustEvaluator: TrustEvaluator {
    /// The lists.
    public let revocationLists: CertificateRevocationLists
    /// The certificates checked (default: the leaf, as curl does).
    public let check: RevocationListCheck
    /// Whether a certificate no list covers fails (hard-fail).
    public let requiresCoverage: Bool
    /// Whether the leaf must identify the host.
    public let validateHost: Bool

    /// An evaluator over `revocationLists`; hard-fail by default, as curl's `--crlfile` is.
    public init(
        revocationLists: CertificateRevocationLists, check: RevocationListCheck = .leaf,
        requiresCoverage: Bool = true, validateHost: Bool = true
    ) {
        self.revocationLists = revocationLists
        self.check = check
        self.requiresCoverage = requiresCoverage
        self.validateHost = validateHost
    }

    /// Verifies with the lists, then the host.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        do throws(TrustError) {
            _ = try trust.verifiedChain(revocationLists: revocationLists, check: check)
        } catch where !requiresCoverage && error.isUntrusted {
            _ = try trust.verifiedChain()
        }
        if validateHost { try trust.validateHost() }
    }
}
