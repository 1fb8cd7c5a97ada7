import FWTLS
import Foundation
import Testing

@Suite struct RevocationTrustEvaluatorTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let leaf: String
        let staple: String?
        let required: Bool
        let timeOffset: Int64
        let outcome: TrustOutcome
        let why: String

        init(_ leaf: String, staple: String?, required: Bool = false, timeOffset: Int64 = 0,
             _ outcome: TrustOutcome, _ why: String) {
            self.leaf = leaf
            self.staple = staple
            self.required = required
            self.timeOffset = timeOffset
            self.outcome = outcome
            self.why = why
        }

        var testDescription: String { why }
    }

    static let good = "ocsp-valid-ecdsa-good.der"
    static let revoked = "ocsp-revoked.der"

    static let rows: [Row] = [
        Row("valid-ecdsa.pem", staple: good, .accepted, "good staple"),
        Row("valid-ecdsa.pem", staple: good, required: true, .accepted, "good staple, required"),
        Row("revoked.pem", staple: revoked, .revoked, "revoked staple"),
        Row("revoked.pem", staple: revoked, required: true, .revoked, "revoked staple, required"),
        Row("valid-ecdsa.pem", staple: nil, .accepted, "no staple, soft-fail"),
        Row("valid-ecdsa.pem", staple: nil, required: true, .untrusted, "no staple, hard-fail"),
        Row("revoked.pem", staple: nil, .accepted, "a revoked leaf without a staple passes soft-fail"),
        Row("valid-ecdsa.pem", staple: revoked, .accepted, "a staple about another certificate is ignored"),
        Row("valid-ecdsa.pem", staple: revoked, required: true, .untrusted,
            "a staple about another certificate is not a usable answer"),
        Row("valid-ecdsa.pem", staple: "valid-ecdsa.pem", required: true, .untrusted, "garbage staple"),
        Row("valid-ecdsa.pem", staple: good, required: true, timeOffset: -86_400 * 2, .untrusted,
            "a response from the future"),
    ]

    /// The good staple's validity window, read from the fixture: every row is judged at a time inside
    /// it (shifted by the row's offset), so the table passes on any date until the fixtures expire,
    /// which `FixtureExpiryTests` guards.
    static func goodStapleDates() throws -> OCSPResponseDates {
        try OCSPResponseDates(der: Fixtures.bytes(good))
    }

    @Test(arguments: rows)
    func appliesTheStapledResponse(_ row: Row) throws {
        let trust = ServerTrust(
            certificateChain: try Fixtures.chain(row.leaf), host: "localhost", anchors: try Fixtures.roots(),
            verificationTime: try Self.goodStapleDates().thisUpdate + 86_400 + row.timeOffset,
            stapledOCSPResponse: try row.staple.map(Fixtures.bytes)
        )
        let evaluator = RevocationTrustEvaluator(performDefaultValidation: false, requiresStapledResponse: row.required)
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == row.outcome)
    }

    @Test func staleResponsesAreNotUsable() throws {
        let dates = try Self.goodStapleDates()
        let trust = ServerTrust(
            certificateChain: try Fixtures.chain("valid-ecdsa.pem"), host: "localhost",
            anchors: try Fixtures.roots(), verificationTime: dates.nextUpdate + 86_400,
            stapledOCSPResponse: try Fixtures.bytes(Self.good)
        )
        let strict = RevocationTrustEvaluator(performDefaultValidation: false, requiresStapledResponse: true)
        #expect(TrustOutcome.of { () throws(TrustError) in try strict.evaluate(trust) } == .untrusted)
    }

    @Test func aResponseSignedByAnUntrustedResponderIsNotUsable() throws {
        let trust = ServerTrust(
            certificateChain: try Fixtures.chain("valid-ecdsa.pem"), host: "localhost",
            anchors: .certificates([try Fixtures.certificate("unknown-root-ca.pem")]),
            stapledOCSPResponse: try Fixtures.bytes(Self.good)
        )
        let strict = RevocationTrustEvaluator(performDefaultValidation: false, requiresStapledResponse: true)
        #expect(TrustOutcome.of { () throws(TrustError) in try strict.evaluate(trust) } == .untrusted)
    }

    @Test func revokedReasonNamesTheCRLReason() throws {
        let trust = ServerTrust(
            certificateChain: try Fixtures.chain("revoked.pem"), host: "localhost", anchors: try Fixtures.roots(),
            stapledOCSPResponse: try Fixtures.bytes(Self.revoked)
        )
        do {
            try RevocationTrustEvaluator().evaluate(trust)
            Issue.record("a revoked leaf must fail")
        } catch {
            #expect(error.isRevoked)
            #expect(error.reason.contains("keyCompromise"))
        }
    }

    @Test func defaultValidationRunsFirst() throws {
        let trust = ServerTrust(
            certificateChain: try Fixtures.chain("expired.pem"), host: "localhost", anchors: try Fixtures.roots()
        )
        #expect(TrustOutcome.of { () throws(TrustError) in try RevocationTrustEvaluator().evaluate(trust) } == .expired)
    }
}
