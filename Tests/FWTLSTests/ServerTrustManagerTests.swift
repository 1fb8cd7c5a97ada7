import FWTLS
import Testing

@Suite struct ServerTrustManagerTests {
    static func trust(_ leaf: String, host: String) throws -> ServerTrust {
        ServerTrust(certificateChain: try Fixtures.chain(leaf), host: host, anchors: try Fixtures.roots())
    }

    @Test func choosesTheEvaluatorPerHost() throws {
        let manager = ServerTrustManager(evaluators: [
            "Pinned.Test.": try SPKIPinsTrustEvaluator(pins: try Fixtures.certificate("valid-rsa.pem").spkiPin,
                                                       validateHost: false),
            "insecure.test": DisabledTrustEvaluator(),
            "localhost": DefaultTrustEvaluator(),
        ])
        #expect(try manager.serverTrustEvaluator(forHost: "pinned.test") is SPKIPinsTrustEvaluator)
        #expect(try manager.serverTrustEvaluator(forHost: "PINNED.test.") is SPKIPinsTrustEvaluator)
        #expect(try manager.serverTrustEvaluator(forHost: "insecure.test") is DisabledTrustEvaluator)
        let pinned = try Self.trust("valid-ecdsa.pem", host: "pinned.test")
        #expect(TrustOutcome.of { () throws(TrustError) in try manager.evaluate(pinned) } == .pinMismatch)
        let insecure = try Self.trust("expired.pem", host: "insecure.test")
        #expect(TrustOutcome.of { () throws(TrustError) in try manager.evaluate(insecure) } == .accepted)
        let local = try Self.trust("valid-ecdsa.pem", host: "localhost")
        #expect(TrustOutcome.of { () throws(TrustError) in try manager.evaluate(local) } == .accepted)
    }

    @Test func everyHostMustBeListedByDefault() throws {
        let manager = ServerTrustManager(evaluators: ["localhost": DefaultTrustEvaluator()])
        #expect(manager.allHostsMustBeEvaluated)
        do {
            _ = try manager.serverTrustEvaluator(forHost: "other.test")
            Issue.record("an unlisted host must throw")
        } catch {
            #expect(error.isNoEvaluator)
        }
        let other = try Self.trust("valid-ecdsa.pem", host: "other.test")
        #expect(TrustOutcome.of { () throws(TrustError) in try manager.evaluate(other) } == .noEvaluator)
    }

    @Test func unlistedHostsGetTheDefaultEvaluationWhenAllowed() throws {
        let manager = ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: [:])
        #expect(try manager.serverTrustEvaluator(forHost: "localhost") == nil)
        let valid = try Self.trust("valid-ecdsa.pem", host: "localhost")
        #expect(TrustOutcome.of { () throws(TrustError) in try manager.evaluate(valid) } == .accepted)
        let wrong = try Self.trust("wrong-host.pem", host: "localhost")
        #expect(TrustOutcome.of { () throws(TrustError) in try manager.evaluate(wrong) } == .hostnameMismatch)
    }
}
