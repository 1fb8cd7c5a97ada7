import FWTLS
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite struct PinSetTrustEvaluatorTests {
    /// Collects the reports an evaluator hands over.
    final class Reports: Sendable {
        private let reports = Mutex<[PinViolationReport]>([])
        var all: [PinViolationReport] { reports.withLock { $0 } }
        var handler: @Sendable (PinViolationReport) -> Void {
            { report in self.reports.withLock { $0.append(report) } }
        }
    }

    static func pin(_ file: String) throws -> String {
        try #require(try TLSFixtures.readmePins()[file] ?? TLSFixtures.readmePins("pinning/README.md")[file])
    }

    /// valid-ecdsa.pem + the intermediate, judged a day after the leaf's notBefore (a fixture date).
    static func trust(host: String = "localhost", leaf: String = "valid-ecdsa.pem") throws -> ServerTrust {
        let chain = try Fixtures.chain(leaf)
        return ServerTrust(
            certificateChain: chain, host: host, anchors: try Fixtures.roots(),
            verificationTime: chain[0].notBefore + 86_400, port: 8443
        )
    }

    struct Row: CustomTestStringConvertible, Sendable {
        let pinned: String
        let scope: PinSet.Scope
        let mode: PinSet.Mode
        let expiresBeforeNow: Bool
        let outcome: TrustOutcome
        let disposition: PinViolationReport.Disposition?
        var testDescription: String { "\(pinned) \(scope.rawValue) \(mode) expired=\(expiresBeforeNow)" }
    }

    static let rows: [Row] = [
        Row(pinned: "valid-ecdsa.pem", scope: .anyCertificate, mode: .enforce, expiresBeforeNow: false,
            outcome: .accepted, disposition: nil),
        Row(pinned: "intermediate-ca.pem", scope: .intermediates, mode: .enforce, expiresBeforeNow: false,
            outcome: .accepted, disposition: nil),
        Row(pinned: "root-ca.pem", scope: .root, mode: .enforce, expiresBeforeNow: false,
            outcome: .accepted, disposition: nil),
        Row(pinned: "root-ca.pem", scope: .leaf, mode: .enforce, expiresBeforeNow: false,
            outcome: .pinMismatch, disposition: .enforced),
        Row(pinned: "rotated.pem", scope: .anyCertificate, mode: .enforce, expiresBeforeNow: false,
            outcome: .pinMismatch, disposition: .enforced),
        Row(pinned: "rotated.pem", scope: .anyCertificate, mode: .reportOnly, expiresBeforeNow: false,
            outcome: .accepted, disposition: .reportOnly),
        Row(pinned: "rotated.pem", scope: .anyCertificate, mode: .enforce, expiresBeforeNow: true,
            outcome: .accepted, disposition: .expired),
    ]

    @Test(arguments: rows)
    func appliesTheHostsSet(_ row: Row) throws {
        let trust = try Self.trust()
        let set = try PinSet(
            host: "localhost", pins: [try Self.pin(row.pinned), try Self.pin("next-backup.key")], scope: row.scope,
            expirationTime: row.expiresBeforeNow ? trust.effectiveTime - 1 : trust.effectiveTime + 1, mode: row.mode
        )
        let reports = Reports()
        let evaluator = PinSetTrustEvaluator(pinSets: [set], reportHandler: reports.handler)
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == row.outcome)
        #expect(reports.all.map(\.disposition) == (row.disposition.map { [$0] } ?? []))
    }

    @Test func theChainIsVerifiedBeforeThePins() throws {
        var trust = try Self.trust()
        trust.anchors = .certificates([try Fixtures.certificate("unknown-root-ca.pem")])
        let set = try PinSet(
            host: "localhost", pins: [try Self.pin("valid-ecdsa.pem"), try Self.pin("next-backup.key")]
        )
        let evaluator = PinSetTrustEvaluator(pinSets: [set])
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == .unknownRoot)
    }

    @Test func aHostWithoutASetPassesOnTheVerification() throws {
        let set = try PinSet(host: "example.com", pins: [try Self.pin("rotated.pem"), try Self.pin("next-backup.key")])
        let reports = Reports()
        let evaluator = PinSetTrustEvaluator(pinSets: [set], reportHandler: reports.handler)
        let trust = try Self.trust()
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == .accepted)
        #expect(reports.all.isEmpty)
    }

    @Test func subdomainsAreCoveredByTheParentsSet() throws {
        let set = try PinSet(
            host: "fw.test", includesSubdomains: true,
            pins: [try Self.pin("rotated.pem"), try Self.pin("next-backup.key")]
        )
        let reports = Reports()
        let evaluator = PinSetTrustEvaluator(pinSets: [set], reportHandler: reports.handler)
        let trust = try Self.trust(host: "api.fw.test", leaf: "wildcard.pem")
        #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == .pinMismatch)
        #expect(reports.all.first?.notedHostname == "fw.test")
        #expect(reports.all.first?.includesSubdomains == true)
    }

    @Test func theReportHasTheFieldsOfRFC7469() throws {
        let trust = try Self.trust()
        let set = try PinSet(
            host: "localhost", pins: [try Self.pin("rotated.pem"), try Self.pin("next-backup.key")],
            expirationTime: trust.effectiveTime + 86_400, mode: .reportOnly, reportURI: "http://127.0.0.1:1/report"
        )
        let reports = Reports()
        try PinSetTrustEvaluator(pinSets: [set], reportHandler: reports.handler).evaluate(trust)
        let report = try #require(reports.all.first)
        #expect(report.servedCertificateChain.count == 2)
        #expect(report.validatedCertificateChain.count == 3, "the verified chain ends at the root")
        #expect(report.validatedCertificateChain.last == (try Fixtures.certificate("root-ca.pem")))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(report.jsonText.utf8)) as? [String: Any]
        )
        let day = ISO8601DateFormatter()
        #expect((json["date-time"] as? String).flatMap(day.date(from:))?.timeIntervalSince1970
            == TimeInterval(trust.effectiveTime))
        #expect((json["effective-expiration-date"] as? String).flatMap(day.date(from:))?.timeIntervalSince1970
            == TimeInterval(trust.effectiveTime + 86_400))
        #expect(json["hostname"] as? String == "localhost")
        #expect(json["port"] as? Int == 8443)
        #expect(json["include-subdomains"] as? Bool == false)
        #expect(json["noted-hostname"] as? String == "localhost")
        let served = try #require(json["served-certificate-chain"] as? [String])
        #expect(try served.map { try Certificate(pemEncoded: $0) } == trust.certificateChain)
        #expect((json["validated-certificate-chain"] as? [String])?.count == 3)
        let known = try Self.pin("rotated.pem").dropFirst("sha256//".count)
        #expect((json["known-pins"] as? [String])?.first == "pin-sha256=\"\(known)\"")
        #expect(json["fw-disposition"] as? String == "report-only")
        #expect(report.reportURI == "http://127.0.0.1:1/report")
    }

    // MARK: Against openssl s_server

    @Test func enforcedReportOnlyAndRotationAgainstSServer() throws {
        let context = try TLSContext(configuration: try Fixtures.configuration())
        let old = try Self.pin("valid-ecdsa.pem")
        let rotated = try Self.pin("rotated.pem")
        let backup = try Self.pin("next-backup.key")

        let server = try OpenSSLServer.start()
        let trust = try LoopbackTLSClient(context: context, port: server.port).connect()
        #expect(trust.port == server.port)
        let reports = Reports()
        let enforced = PinSetTrustEvaluator(
            pinSets: [try PinSet(host: "localhost", pins: [rotated, backup])], reportHandler: reports.handler
        )
        #expect(TrustOutcome.of { () throws(TrustError) in try enforced.evaluate(trust) } == .pinMismatch)
        let reportOnly = PinSetTrustEvaluator(
            pinSets: [try PinSet(host: "localhost", pins: [rotated, backup], mode: .reportOnly)],
            reportHandler: reports.handler
        )
        #expect(TrustOutcome.of { () throws(TrustError) in try reportOnly.evaluate(trust) } == .accepted)
        #expect(reports.all.map(\.disposition) == [.enforced, .reportOnly])
        #expect(reports.all.allSatisfy { $0.port == server.port && $0.servedCertificateChain.count == 2 })

        // The rotation: the old key with the rotated key as its backup keeps working after the switch.
        let before = PinSetTrustEvaluator(pinSets: [try PinSet(host: "localhost", pins: [old, rotated])])
        #expect(TrustOutcome.of { () throws(TrustError) in try before.evaluate(trust) } == .accepted)
        let switched = try OpenSSLServer.start(certificate: "pinning/rotated.pem")
        let rotatedTrust = try LoopbackTLSClient(context: context, port: switched.port).connect()
        #expect(TrustOutcome.of { () throws(TrustError) in try before.evaluate(rotatedTrust) } == .accepted)
    }
}
