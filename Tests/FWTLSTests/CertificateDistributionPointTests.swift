import FWTLS
import Testing
import TestSupport

// The CRL distribution points a certificate names, and CRLs combined from several sources.

@Suite struct CertificateDistributionPointTests {
    @Test func theFixtureLeavesNameTheirDistributionPoint() throws {
        for leaf in ["pinning/crl-dp.pem", "pinning/crl-dp-revoked.pem"] {
            let certificate = try Fixtures.certificate(leaf)
            #expect(certificate.crlDistributionPoints == ["http://crl.fwnetworking.test/intermediate-ca.crl"])
        }
        #expect(try Fixtures.certificate("valid-ecdsa.pem").crlDistributionPoints.isEmpty)
    }

    @Test func combinedListsHoldEveryCRL() throws {
        let pem = try CertificateRevocationLists(file: Fixtures.path("pinning/intermediate-ca.crl.pem"))
        let der = try CertificateRevocationLists(file: Fixtures.path("pinning/intermediate-ca.crl"))
        let combined = try #require(CertificateRevocationLists(combining: [pem, der]))
        #expect(combined.count == 2)
        #expect(combined.earliestNextUpdate == pem.updateTimes.first?.nextUpdate)
        #expect(CertificateRevocationLists(combining: []) == nil)
    }

    @Test func theDERListRevokesTheDistributionPointLeaf() throws {
        let lists = try CertificateRevocationLists(file: Fixtures.path("pinning/intermediate-ca.crl"))
        let lastUpdate = try #require(lists.updateTimes.first?.lastUpdate)
        let trust = ServerTrust(certificateChain: try Fixtures.chain("pinning/crl-dp-revoked.pem"), host: "localhost",
                                anchors: try Fixtures.roots(), verificationTime: lastUpdate + 3_600)
        let evaluator = RevocationListTrustEvaluator(revocationLists: lists)
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == .revoked)
    }
}
