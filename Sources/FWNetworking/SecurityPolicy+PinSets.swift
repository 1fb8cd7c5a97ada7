// SecurityPolicy's pin sets (FWNetworking addition): FWTLS `PinSet`s applied after the policy's own
// rules (SecurityPolicy+Evaluation.swift), through `PinSetTrustEvaluator` over the chain verified to the
// trust's anchors (the served chain when `allowInvalidCertificates`). A violation is handed to
// `pinViolationHandler` and, when the set has a report URI, to `pinViolationReportUploader`; an enforced,
// unexpired set then refuses, a report-only or expired one lets the request proceed. Pin sets are not
// part of the policy's coding (a coded policy keeps the seeds' settings only).

import FWTLS
import Foundation

extension SecurityPolicy {
    /// The pin sets, one per host pattern (FWNetworking addition). Empty by default.
    public var pinSets: [PinSet] {
        get { rules.withLock { $0.pinSets } }
        set { rules.withLock { $0.pinSets = newValue } }
    }

    /// Hears every pin violation report, enforced or not, on the thread that evaluated the trust
    /// (FWNetworking addition).
    public var pinViolationHandler: (@Sendable (PinViolationReport) -> Void)? {
        get { rules.withLock { $0.pinViolationHandler } }
        set { rules.withLock { $0.pinViolationHandler = newValue } }
    }

    /// What POSTs the reports of sets with a report URI (FWNetworking addition); default `.shared`, nil
    /// sends none.
    public var pinViolationReportUploader: PinViolationReportUploader? {
        get { rules.withLock { $0.pinViolationReportUploader } }
        set { rules.withLock { $0.pinViolationReportUploader = newValue } }
    }
}

extension SecurityPolicy.Rules {
    /// Applies the pin sets to `trust` (whose host is the evaluated domain); throws for an enforced
    /// violation.
    func applyPinSets(_ trust: ServerTrust) throws(TrustError) {
        guard !pinSets.isEmpty else { return }
        let handler = pinViolationHandler
        let uploader = pinViolationReportUploader
        let evaluator = PinSetTrustEvaluator(
            pinSets: pinSets, performDefaultValidation: !allowInvalidCertificates, validateHost: false
        ) { report in
            handler?(report)
            uploader?.submit(report)
        }
        try evaluator.evaluate(trust)
    }
}
