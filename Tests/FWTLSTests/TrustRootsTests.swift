import FWTLS
import Testing

@Suite struct TrustRootsTests {
    @Test func systemRootsAreShared() {
        #expect(TrustRoots.system.includesSystemRoots)
        #expect(TrustRoots.system.certificates.isEmpty)
        #expect(TLSConfiguration().trustRoots.includesSystemRoots)
        #expect(String(describing: TrustRoots.system) == "TrustRoots.system")
    }

    /// The system store loads once: many evaluations against it stay fast (a reload per evaluation
    /// parses the whole CA bundle each time).
    @Test func systemStoreIsLoadedOnce() throws {
        let chain = try Fixtures.chain("valid-ecdsa.pem")
        let trust = ServerTrust(certificateChain: chain, host: "localhost", anchors: .system)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<100 {
                #expect(TrustOutcome.of { () throws(TrustError) in try trust.validateChain() } == .unknownRoot)
            }
        }
        #expect(elapsed < .seconds(3))
    }

    @Test func customAnchorsFromAPEMFile() throws {
        let roots = try TrustRoots.pemFile(Fixtures.path("valid-ecdsa-chain.pem"))
        #expect(roots.certificates.count == 2)
        #expect(!roots.includesSystemRoots)
        #expect(String(describing: roots) == "TrustRoots(2 anchors only)")
        let both = try TrustRoots.pemFile(Fixtures.path("root-ca.pem"), includingSystemRoots: true)
        #expect(both.includesSystemRoots)
        #expect(String(describing: both) == "TrustRoots(1 anchors + system)")
        do {
            _ = try TrustRoots.pemFile(Fixtures.path("client.key"))
            Issue.record("a key file has no certificates")
        } catch {
            #expect(error.isDecodingFailure)
        }
    }
}
