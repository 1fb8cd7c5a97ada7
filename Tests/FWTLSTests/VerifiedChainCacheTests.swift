import FWTLS
import Testing

/// A trust store remembers the chains it verified (so the next connection to a server skips the signature
/// checks); these pin that a remembered chain never changes a verdict: the time is still checked, and
/// other certificates are still verified in full.
@Suite struct VerifiedChainCacheTests {
    static let intermediate = "intermediate-ca.pem"
    static let mid2000: Int64 = 961_000_000
    static let year2049: Int64 = 2_500_000_000

    private func outcome(_ chain: [String], _ roots: TrustRoots, at time: Int64? = nil) throws -> TrustOutcome {
        let trust = ServerTrust(
            certificateChain: try chain.map(Fixtures.certificate), host: "localhost", anchors: roots,
            verificationTime: time
        )
        return TrustOutcome.of { () throws(TrustError) in try trust.validateChain() }
    }

    @Test func aVerifiedChainIsStillCheckedAgainstTheTime() throws {
        let roots = try Fixtures.roots()
        let chain = ["valid-ecdsa.pem", Self.intermediate]
        #expect(try outcome(chain, roots) == .accepted)
        #expect(try outcome(chain, roots) == .accepted)
        #expect(try outcome(chain, roots, at: Self.mid2000) == .notYetValid)
        #expect(try outcome(chain, roots, at: Self.year2049) == .expired)
        #expect(try outcome(chain, roots) == .accepted)
    }

    @Test func aVerifiedChainVouchesForNoOther() throws {
        let roots = try Fixtures.roots()
        #expect(try outcome(["valid-ecdsa.pem", Self.intermediate], roots) == .accepted)
        #expect(try outcome(["valid-ecdsa.pem"], roots) == .unknownRoot)
        #expect(try outcome(["valid-ecdsa.pem", Self.intermediate, "unknown-root-ca.pem"], roots) == .accepted)
        #expect(try outcome(["unknown-root-leaf.pem", Self.intermediate], roots) == .unknownRoot)
        #expect(try outcome(["expired.pem", Self.intermediate], roots) == .expired)
        #expect(try outcome(["client.pem", "client-ca.pem"], .certificates([Fixtures.certificate("client-ca.pem")]))
                == .untrusted)
    }

    @Test func aChainAnchoredInOneStoreIsNotTrustedByAnother() throws {
        let leafOnly = TrustRoots.certificates([try Fixtures.certificate("valid-ecdsa.pem")])
        #expect(try outcome(["valid-ecdsa.pem"], leafOnly) == .accepted)
        #expect(try outcome(["valid-ecdsa.pem"], try Fixtures.roots()) == .unknownRoot)
        #expect(try outcome(["valid-ecdsa.pem"], .certificates([])) == .unknownRoot)
    }

    @Test func manyChainsInTurnKeepTheirVerdicts() throws {
        let roots = try Fixtures.roots()
        let chains: [([String], TrustOutcome)] = [
            (["valid-ecdsa.pem", Self.intermediate], .accepted), (["valid-rsa.pem", Self.intermediate], .accepted),
            (["wildcard.pem", Self.intermediate], .accepted), (["not-yet-valid.pem", Self.intermediate], .notYetValid),
            (["self-signed.pem"], .unknownRoot),
        ]
        for _ in 0..<10 {
            for (chain, expected) in chains {
                #expect(try outcome(chain, roots) == expected)
            }
        }
    }
}
