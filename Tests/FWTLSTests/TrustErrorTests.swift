import FWTLS
import Testing

@Suite struct TrustErrorTests {
    @Test func exactlyOnePredicateHoldsForEachKind() {
        let cases: [(TrustError, KeyPath<TrustError, Bool>)] = [
            (.untrusted(reason: "r"), \.isUntrusted),
            (.expired(reason: "r"), \.isExpired),
            (.notYetValid(reason: "r"), \.isNotYetValid),
            (.unknownRoot(reason: "r"), \.isUnknownRoot),
            (.hostnameMismatch(reason: "r"), \.isHostnameMismatch),
            (.pinMismatch(reason: "r"), \.isPinMismatch),
            (.revoked(reason: "r"), \.isRevoked),
            (.invalidPin(reason: "r"), \.isInvalidPin),
        ]
        let predicates = cases.map(\.1)
        for (error, predicate) in cases {
            #expect(error[keyPath: predicate])
            #expect(predicates.filter { error[keyPath: $0] }.count == 1, "\(error)")
        }
        #expect(String(describing: TrustError.revoked(reason: "gone")).contains("gone"))
    }
}
