import FWTLS
import Foundation
import Testing

/// Fails loudly a year before any fixture (other than the deliberately expired and not-yet-valid ones)
/// expires: rerun Scripts/make-test-certs.sh and commit the result.
///
/// The only suite that reads the wall clock on purpose: it is the fixture-expiry guard. Every other test
/// places its verification time relative to a fixture, so it passes on any date before the fixtures expire
/// (`Scripts/test.sh` proves that by running the TLS and pool tests under shifted clocks).
@Suite struct FixtureExpiryTests {
    static let files = [
        "root-ca.pem", "intermediate-ca.pem", "unknown-root-ca.pem", "client-ca.pem", "valid-ecdsa.pem",
        "valid-ecdsa-chain.pem", "valid-rsa.pem", "wrong-host.pem", "wildcard.pem", "ip-only.pem", "cn-only.pem",
        "revoked.pem", "unknown-root-leaf.pem", "self-signed.pem", "client.pem", "pinning/rotated.pem",
    ]

    static let oneYear: Int64 = 365 * 24 * 60 * 60
    static let onPurpose = "(This is the fixture-expiry guard: it depends on today's date on purpose.)"

    @Test(arguments: files)
    func validForAnotherYear(_ file: String) throws {
        let inAYear = Int64(Date().timeIntervalSince1970) + Self.oneYear
        for certificate in try Certificate.certificates(pemFile: Fixtures.path(file)) {
            #expect(
                certificate.notAfter > inAYear,
                "\(file) expires within a year: run Scripts/make-test-certs.sh, commit Fixtures/tls. \(Self.onPurpose)"
            )
        }
    }

    @Test func stapledOCSPResponseValidForAnotherYear() throws {
        var trust = ServerTrust(
            certificateChain: try Fixtures.chain("valid-ecdsa.pem"), host: "localhost", anchors: try Fixtures.roots(),
            verificationTime: Int64(Date().timeIntervalSince1970) + Self.oneYear,
            stapledOCSPResponse: try Fixtures.bytes("ocsp-valid-ecdsa-good.der")
        )
        let evaluator = RevocationTrustEvaluator(performDefaultValidation: false, requiresStapledResponse: true)
        let stale = "ocsp-valid-ecdsa-good.der goes stale within a year: rerun Scripts/make-test-certs.sh."
        #expect(throws: Never.self, "\(stale) \(Self.onPurpose)") {
            try evaluator.evaluate(trust)
        }
        trust.stapledOCSPResponse = try Fixtures.bytes("ocsp-revoked.der")
        trust.certificateChain = try Fixtures.chain("revoked.pem")
        #expect(throws: TrustError.self) { try evaluator.evaluate(trust) }
    }
}
