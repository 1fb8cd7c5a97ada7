// AFNetworking's trust rules (the seeds' manager evaluates with them) as FWTLS evaluators. In order:
//
// 1. Allowing invalid certificates while validating the domain name, with a domain and without pins,
//    refuses: a self-signed certificate can only be tied to a domain by pinning it.
// 2. The domain: checked (the leaf must identify it) when `validatesDomainName` and a domain is given.
// 3. No pinning: `DefaultTrustEvaluator` (the chain must lead to one of the trust's anchors, by default
//    the session's roots), or `DisabledTrustEvaluator` when invalid certificates are allowed.
// 4. Pinning: a pinning policy without usable pins refuses. Unless invalid certificates are allowed,
//    the platform validation runs first. Then `.certificate`: `PinnedCertificatesTrustEvaluator`, twice:
//    a pinned certificate must be in the chain, and the chain must verify (dates, signatures, domain)
//    with the pins as the only anchors, so a pinned self-signed leaf, intermediate or root works and a
//    pinned expired leaf does not; `.publicKey`: `PublicKeysTrustEvaluator` over the pins' keys, with no
//    validation of its own (so with invalid certificates allowed, neither the chain nor the domain is
//    checked: the key alone decides).
//
// The pins are matched against the chain as the platform builds it: what the server sent, followed by
// the pinned or anchor certificate that issued its last certificate (a root is rarely sent), added only
// when that certificate verifies the chain.
//
// 5. Pin sets (SecurityPolicy+PinSets.swift), last, whatever the pinning mode.

import FWTLS
import Foundation

// MARK: - Rules → evaluators

extension SecurityPolicy.Rules {
    /// Throws why `trust` is refused for `domain` under these rules.
    func evaluate(_ trust: ServerTrust, forDomain domain: String?) throws(TrustError) {
        let checksDomain = validatesDomainName && domain != nil
        if checksDomain, allowInvalidCertificates, pinningMode == .none || certificates.isEmpty {
            throw TrustError.untrusted(
                reason: "invalid certificates are allowed and the domain name is validated: only pinning can "
                    + "tie a certificate that fails validation to \(domain ?? "the domain")"
            )
        }
        var trust = trust
        if let domain { trust.host = domain }
        let served = trust
        let validation: any TrustEvaluator = allowInvalidCertificates
            ? DisabledTrustEvaluator() : DefaultTrustEvaluator(validateHost: checksDomain)
        let pin: any TrustEvaluator
        switch pinningMode {
        case .none:
            try validation.evaluate(trust)
            try applyPinSets(served)
            return
        case .certificate:
            try requirePins()
            trust.certificateChain = Self.platformChain(trust, candidates: certificates)
            // A pinned certificate in the chain (else a pin mismatch), then the chain verified up to it.
            pin = CompositeTrustEvaluator(evaluators: [
                PinnedCertificatesTrustEvaluator(
                    certificates: certificates, performDefaultValidation: false, validateHost: false
                ),
                PinnedCertificatesTrustEvaluator(
                    certificates: certificates, acceptSelfSignedCertificates: true, validateHost: checksDomain
                ),
            ])
        case .publicKey:
            try requirePins()
            trust.certificateChain = Self.platformChain(trust, candidates: certificates + trust.anchors.certificates)
            pin = PublicKeysTrustEvaluator(
                keys: certificates.map(\.publicKey), performDefaultValidation: false, validateHost: false
            )
        }
        try CompositeTrustEvaluator(evaluators: [validation, pin]).evaluate(trust)
        try applyPinSets(served)
    }

    private func requirePins() throws(TrustError) {
        guard certificates.isEmpty else { return }
        throw TrustError.pinMismatch(reason: "pinning by \(pinningMode) without a pinned certificate trusts no server")
    }

    /// The chain the server sent, followed by the candidate that issued its last certificate when that
    /// candidate verifies the whole chain (a signature check, not a name match).
    static func platformChain(_ trust: ServerTrust, candidates: [Certificate]) -> [Certificate] {
        var chain = trust.certificateChain
        guard let last = chain.last, !last.isSelfSigned else { return chain }
        for candidate in candidates where candidate.subjectText == last.issuerText && !chain.contains(candidate) {
            var probe = trust
            probe.anchors = .certificates([candidate])
            if (try? probe.validateChain()) != nil {
                chain.append(candidate)
                break
            }
        }
        return chain
    }
}
