import FWTLS
import Testing
import TestSupport

@Suite struct RevocationListTrustEvaluatorTests {
    static let crlFile = "pinning/intermediate-ca.crl.pem"

    static func lists() throws -> CertificateRevocationLists {
        try CertificateRevocationLists(file: Fixtures.path(crlFile))
    }

    /// A trust judged an hour after the CRL's lastUpdate (a fixture date, never the wall clock).
    static func trust(_ leaf: String, anchors: TrustRoots? = nil) throws -> ServerTrust {
        let lastUpdate = try #require(try lists().updateTimes.first?.lastUpdate)
        return ServerTrust(
            certificateChain: try Fixtures.chain(leaf), host: "localhost", anchors: try anchors ?? Fixtures.roots(),
            verificationTime: lastUpdate + 3_600
        )
    }

    @Test func readsTheFixtureCRL() throws {
        let lists = try Self.lists()
        #expect(lists.count == 1)
        #expect(lists.issuers.first?.contains("FWNetworking Test Intermediate CA") == true)
        let dates = try #require(lists.updateTimes.first)
        #expect(try #require(dates.nextUpdate) > dates.lastUpdate)
    }

    @Test func garbageIsNotAList() throws {
        #expect(throws: TLSError.self) { try CertificateRevocationLists(bytes: Array("not a CRL".utf8)) }
        #expect(throws: TLSError.self) { try CertificateRevocationLists(file: Fixtures.path("valid-ecdsa.pem")) }
        #expect(throws: TLSError.self) { try CertificateRevocationLists(file: Fixtures.path("missing.crl")) }
    }

    @Test(arguments: [
        ("valid-ecdsa.pem", true, TrustOutcome.accepted), ("revoked.pem", true, .revoked),
        ("revoked.pem", false, .revoked), ("pinning/rotated.pem", true, .accepted),
    ])
    func revokedLeavesFail(_ leaf: String, _ hardFail: Bool, _ outcome: TrustOutcome) throws {
        let evaluator = RevocationListTrustEvaluator(revocationLists: try Self.lists(), requiresCoverage: hardFail)
        let trust = try Self.trust(leaf)
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == outcome)
    }

    @Test func aChainNoListCoversFailsHardPassesSoft() throws {
        let unknownRoot = TrustRoots.certificates([try Fixtures.certificate("unknown-root-ca.pem")])
        var trust = try Self.trust("valid-ecdsa.pem", anchors: unknownRoot)
        trust.certificateChain = [try Fixtures.certificate("unknown-root-leaf.pem")]
        let hard = RevocationListTrustEvaluator(revocationLists: try Self.lists())
        #expect(TrustOutcome.of { () throws(TrustError) in try hard.evaluate(trust) } == .untrusted)
        let soft = RevocationListTrustEvaluator(revocationLists: try Self.lists(), requiresCoverage: false)
        #expect(TrustOutcome.of { () throws(TrustError) in try soft.evaluate(trust) } == .accepted)
    }

    @Test func theWholeChainNeedsTheRootsListToo() throws {
        let evaluator = RevocationListTrustEvaluator(revocationLists: try Self.lists(), check: .wholeChain)
        let trust = try Self.trust("valid-ecdsa.pem")
        let outcome = TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) }
        #expect(outcome == .untrusted, "no list of the root covers the intermediate")
    }

    @Test func aListFromBeforeItsLastUpdateIsNotUsed() throws {
        var trust = try Self.trust("revoked.pem")
        trust.verificationTime = try #require(try Self.lists().updateTimes.first?.lastUpdate) - 86_400 * 2
        let evaluator = RevocationListTrustEvaluator(revocationLists: try Self.lists())
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == .untrusted)
    }

    @Test func revokedServerAgainstSServer() throws {
        let context = try TLSContext(configuration: try Fixtures.configuration())
        let evaluator = RevocationListTrustEvaluator(revocationLists: try Self.lists())
        let revoked = try OpenSSLServer.start(certificate: "revoked.pem")
        let revokedTrust = try LoopbackTLSClient(context: context, port: revoked.port).connect()
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(revokedTrust) } == .revoked)
        let valid = try OpenSSLServer.start()
        let validTrust = try LoopbackTLSClient(context: context, port: valid.port).connect()
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(validTrust) } == .accepted)
    }
}
