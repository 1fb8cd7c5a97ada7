// MARK: - TrustEvaluator

/// Decides whether to trust a server (the shape of Alamofire's `ServerTrustEvaluating`).
///
/// Evaluators are values, composable with `CompositeTrustEvaluator`. They run after the handshake, before
/// any request byte is sent: FWHTTP's on the connection's thread, FWNetworking's `SecurityPolicy` in the
/// session's server-trust challenge.
public protocol TrustEvaluator: Sendable {
    /// Returns when `trust` is acceptable; throws the reason otherwise.
    func evaluate(_ trust: ServerTrust) throws(TrustError)
}

// MARK: - DefaultTrustEvaluator

/// What URLSession does by default: the chain must lead to one of the trust's anchors at the
/// evaluation time, and (unless `validateHost` is false) the leaf must identify the host.
public struct DefaultTrustEvaluator: TrustEvaluator {
    /// Whether the leaf must identify the host.
    public let validateHost: Bool

    /// The default evaluation, with or without the hostname check.
    public init(validateHost: Bool = true) {
        self.validateHost = validateHost
    }

    /// Validates the chain, then the host.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        try trust.validateChain()
        if validateHost { try trust.validateHost() }
    }
}

// MARK: - DisabledTrustEvaluator

/// Trusts every server, whatever it sends. For development against a server you control only: it
/// turns TLS into encryption without authentication (curl's `--insecure`).
public struct DisabledTrustEvaluator: TrustEvaluator {
    /// An evaluator that accepts anything.
    public init() {}

    /// Accepts.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {}
}

// MARK: - CompositeTrustEvaluator

/// Runs evaluators in order; the first failure is the result.
public struct CompositeTrustEvaluator: TrustEvaluator {
    /// The evaluators, in the order they run.
    public let evaluators: [any TrustEvaluator]

    /// An evaluator that requires all of `evaluators` to accept.
    public init(evaluators: [any TrustEvaluator]) {
        self.evaluators = evaluators
    }

    /// Runs every evaluator; rethrows the first failure.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        for evaluator in evaluators {
            try evaluator.evaluate(trust)
        }
    }
}

// MARK: - Shared steps

extension ServerTrust {
    /// The optional default validation and host check the pinning evaluators run before their pins.
    func performValidation(defaultValidation: Bool, validateHost: Bool) throws(TrustError) {
        if defaultValidation { try validateChain() }
        if validateHost { try self.validateHost() }
    }
}
