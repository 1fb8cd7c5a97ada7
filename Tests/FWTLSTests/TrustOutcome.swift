import FWTLS

// MARK: - TrustOutcome

/// The expected result of a trust evaluation in a table row.
enum TrustOutcome: String, Sendable {
    case accepted
    case untrusted
    case expired
    case notYetValid
    case unknownRoot
    case hostnameMismatch
    case pinMismatch
    case revoked

    /// The outcome `error` stands for.
    init(_ error: TrustError) {
        let predicates: [(Bool, TrustOutcome)] = [
            (error.isUntrusted, .untrusted), (error.isExpired, .expired), (error.isNotYetValid, .notYetValid),
            (error.isUnknownRoot, .unknownRoot), (error.isHostnameMismatch, .hostnameMismatch),
            (error.isPinMismatch, .pinMismatch), (error.isRevoked, .revoked),
        ]
        self = predicates.first { $0.0 }?.1 ?? .untrusted
    }

    /// Runs `evaluation` and reports what happened.
    static func of(_ evaluation: () throws(TrustError) -> Void) -> TrustOutcome {
        do {
            try evaluation()
            return .accepted
        } catch {
            return TrustOutcome(error)
        }
    }
}
