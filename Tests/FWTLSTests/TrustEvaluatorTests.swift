import FWTLS
import Testing

@Suite struct TrustEvaluatorTests {
    static func trust(_ leaf: String, host: String = "localhost") throws -> ServerTrust {
        ServerTrust(certificateChain: try Fixtures.chain(leaf), host: host, anchors: try Fixtures.roots())
    }

    @Test func defaultEvaluatorValidatesChainThenHost() throws {
        let valid = try Self.trust("valid-ecdsa.pem")
        #expect(TrustOutcome.of { () throws(TrustError) in try DefaultTrustEvaluator().evaluate(valid) } == .accepted)
        let expiredWrongHost = try Self.trust("expired.pem", host: "elsewhere.test")
        #expect(TrustOutcome.of { () throws(TrustError) in
            try DefaultTrustEvaluator().evaluate(expiredWrongHost)
        } == .expired, "the chain is checked before the host")
        let wrongHost = try Self.trust("wrong-host.pem")
        #expect(TrustOutcome.of { () throws(TrustError) in
            try DefaultTrustEvaluator(validateHost: false).evaluate(wrongHost)
        } == .accepted)
    }

    @Test func disabledEvaluatorAcceptsAnything() throws {
        let evaluator = DisabledTrustEvaluator()
        for leaf in ["expired.pem", "self-signed.pem", "wrong-host.pem", "unknown-root-leaf.pem"] {
            #expect(throws: Never.self) { try evaluator.evaluate(try Self.trust(leaf, host: "nowhere.test")) }
        }
        #expect(throws: Never.self) {
            try evaluator.evaluate(ServerTrust(certificateChain: [], host: "x", anchors: .certificates([])))
        }
    }

    @Test func compositeRunsEveryEvaluatorInOrder() throws {
        let valid = try Self.trust("valid-ecdsa.pem")
        let validPin = try Fixtures.certificate("valid-ecdsa.pem").spkiPin
        let otherPin = try Fixtures.certificate("wrong-host.pem").spkiPin
        let passing = CompositeTrustEvaluator(evaluators: [
            DefaultTrustEvaluator(), try SPKIPinsTrustEvaluator(pins: validPin),
        ])
        #expect(throws: Never.self) { try passing.evaluate(valid) }
        let pinFails = CompositeTrustEvaluator(evaluators: [
            DefaultTrustEvaluator(), try SPKIPinsTrustEvaluator(pins: otherPin),
        ])
        #expect(TrustOutcome.of { () throws(TrustError) in try pinFails.evaluate(valid) } == .pinMismatch)
        let firstFailureWins = CompositeTrustEvaluator(evaluators: [
            try SPKIPinsTrustEvaluator(pins: otherPin, performDefaultValidation: false), DefaultTrustEvaluator(),
        ])
        let expired = try Self.trust("expired.pem")
        #expect(TrustOutcome.of { () throws(TrustError) in try firstFailureWins.evaluate(expired) } == .pinMismatch)
        #expect(throws: Never.self) { try CompositeTrustEvaluator(evaluators: []).evaluate(expired) }
    }
}
