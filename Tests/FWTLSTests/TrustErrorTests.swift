import FWTLS
import Testing

@Suite struct TrustErrorTests {
    @Test func predicatesAndURLErrorCodes() {
        let cases: [(TrustError, KeyPath<TrustError, Bool>, Int)] = [
            (.untrusted(reason: "r"), \.isUntrusted, -1202),
            (.expired(reason: "r"), \.isExpired, -1201),
            (.notYetValid(reason: "r"), \.isNotYetValid, -1204),
            (.unknownRoot(reason: "r"), \.isUnknownRoot, -1203),
            (.hostnameMismatch(reason: "r"), \.isHostnameMismatch, -1202),
            (.pinMismatch(reason: "r"), \.isPinMismatch, -1202),
            (.revoked(reason: "r"), \.isRevoked, -1202),
            (.noEvaluator(reason: "r"), \.isNoEvaluator, -1202),
            (.invalidPin(reason: "r"), \.isInvalidPin, -1202),
        ]
        let predicates = cases.map(\.1)
        for (error, predicate, code) in cases {
            #expect(error[keyPath: predicate])
            #expect(predicates.filter { error[keyPath: $0] }.count == 1, "\(error)")
            #expect(error.urlErrorCode == code)
        }
        #expect(String(describing: TrustError.revoked(reason: "gone")).contains("gone"))
    }
}
