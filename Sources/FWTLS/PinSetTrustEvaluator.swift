// MARK: - PinSetTrustEvaluator

/// Applies pin sets to a server: verifies the chain (unless told otherwise), checks the host, then looks
/// up the set that covers the host (`PinSet.set(for:in:)`) and matches its pins against the verified
/// chain. A host no set covers passes on the verification alone.
///
/// A mismatch becomes a `PinViolationReport` handed to `reportHandler` (on the evaluating thread; hand
/// it on, do not block). It is refused with `TrustError.pinMismatch` only when the set is enforced and
/// has not expired; report-only and expired sets let the connection proceed.
public struct PinSetTrustEvaluator: TrustEvaluator {
    /// The sets, one per host pattern.
    public let pinSets: [PinSet]
    /// Whether the chain must verify to the anchors (else the pins match the chain as served).
    public let performDefaultValidation: Bool
    /// Whether the leaf must identify the host.
    public let validateHost: Bool
    /// Hears every violation, enforced or not.
    public let reportHandler: (@Sendable (PinViolationReport) -> Void)?

    /// An evaluator applying `pinSets`.
    public init(
        pinSets: [PinSet], performDefaultValidation: Bool = true, validateHost: Bool = true,
        reportHandler: (@Sendable (PinViolationReport) -> Void)? = nil
    ) {
        self.pinSets = pinSets
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.reportHandler = reportHandler
    }

    /// Verifies (as configured), then applies the host's set.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        let chain = performDefaultValidation ? try trust.verifiedChain() : trust.certificateChain
        if validateHost { try trust.validateHost() }
        guard let report = violation(of: trust, chain: chain, validated: performDefaultValidation) else { return }
        reportHandler?(report)
        if report.isEnforced {
            throw TrustError.pinMismatch(
                reason: "no key of \(trust.host)'s chain is in the pin set of \(report.notedHostname) "
                    + "(server keys: \(chain.map(\.spkiPin).joined(separator: ";")))"
            )
        }
    }

    /// The report of `trust` against the set covering its host when `chain` matches none of its pins;
    /// nil when no set covers the host or a pin matches.
    public func violation(of trust: ServerTrust, chain: [Certificate], validated: Bool = true) -> PinViolationReport? {
        guard let set = PinSet.set(for: trust.host, in: pinSets), !set.matches(verifiedChain: chain) else {
            return nil
        }
        return PinViolationReport(trust: trust, pinSet: set, validatedChain: validated ? chain : [])
    }
}
