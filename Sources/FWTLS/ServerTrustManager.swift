// MARK: - ServerTrustManager

/// Chooses the trust evaluator per host (Alamofire's `ServerTrustManager`).
///
/// Hosts are compared case-insensitively without a trailing dot. A host without an evaluator is an
/// error when `allHostsMustBeEvaluated` is set, and gets the default evaluation otherwise.
public struct ServerTrustManager: Sendable {
    /// Whether every host must have an evaluator.
    public let allHostsMustBeEvaluated: Bool

    /// The evaluators by normalised host.
    public let evaluators: [String: any TrustEvaluator]

    /// A manager for `evaluators` keyed by host name or IP literal.
    public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: any TrustEvaluator]) {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        var normalised: [String: any TrustEvaluator] = [:]
        for (host, evaluator) in evaluators {
            normalised[Self.normalise(host)] = evaluator
        }
        self.evaluators = normalised
    }

    /// The evaluator for `host`; nil when there is none and none is required. Throws
    /// `TrustError.noEvaluator` when one is required and missing.
    public func serverTrustEvaluator(forHost host: String) throws(TrustError) -> (any TrustEvaluator)? {
        if let evaluator = evaluators[Self.normalise(host)] { return evaluator }
        if allHostsMustBeEvaluated {
            throw TrustError.noEvaluator(reason: "no trust evaluator for \(host) and every host must have one")
        }
        return nil
    }

    /// Evaluates `trust` with the evaluator for its host, or the default evaluation when the host has
    /// none and none is required.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        let evaluator = try serverTrustEvaluator(forHost: trust.host) ?? DefaultTrustEvaluator()
        try evaluator.evaluate(trust)
    }

    private static func normalise(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
