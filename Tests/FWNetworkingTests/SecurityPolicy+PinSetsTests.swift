import Foundation
import FWNetworking
import Testing
import TestSupport

// SecurityPolicy's pin sets judged from real handshakes with `openssl s_server` (the manager's path:
// `evaluate(_:forDomain:)` answers the challenge), and the report uploader's rules with an injected clock.

@Suite struct SecurityPolicyPinSetsTests {
    /// Collects what the policy reports.
    final class Reports: Sendable {
        let all = LockedBox<[PinViolationReport]>([])
        var handler: @Sendable (PinViolationReport) -> Void { { report in self.all.withLock { $0.append(report) } } }
    }

    /// A hand-moved clock for the uploader.
    final class ManualSeconds: Sendable {
        let now = LockedBox<TimeInterval>(0)
        var clock: @Sendable () -> TimeInterval { { self.now.withLock { $0 } } }
    }

    static func pin(_ file: String) throws -> String {
        try #require(try TLSFixtures.readmePins()[file] ?? TLSFixtures.readmePins("pinning/README.md")[file])
    }

    static func policy(_ pins: [String], mode: PinSet.Mode, reports: Reports, reportURI: String? = nil,
                       uploader: PinViolationReportUploader? = nil) throws -> SecurityPolicy {
        let policy = SecurityPolicy.default
        policy.pinSets = [try PinSet(host: "127.0.0.1", pins: pins, mode: mode, reportURI: reportURI)]
        policy.pinViolationHandler = reports.handler
        policy.pinViolationReportUploader = uploader
        return policy
    }

    /// GET / over a session trusting the fixture root whose delegate answers with `policy`: the status
    /// code, or the URLError code.
    static func fetch(port: Int, policy: SecurityPolicy) async throws -> Int {
        let configuration = URLSessionConfiguration.ephemeral
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(root)
        let session = URLSession(configuration: configuration, delegate: PolicyDelegate(policy), delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "https://127.0.0.1:\(port)/"))
        do {
            let (_, response) = try await session.data(from: url)
            return try #require(response as? HTTPURLResponse).statusCode
        } catch let error as URLError {
            return error.code.rawValue
        }
    }

    @Test func enforcedRefusesReportOnlyProceedsAMatchPasses() async throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let mismatch = [try Self.pin("rotated.pem"), try Self.pin("next-backup.key")]
        let cases: [([String], PinSet.Mode, Int, [PinViolationReport.Disposition])] = [
            (mismatch, .enforce, URLError.Code.serverCertificateUntrusted.rawValue, [.enforced]),
            (mismatch, .reportOnly, 200, [.reportOnly]),
            ([try Self.pin("intermediate-ca.pem"), try Self.pin("next-backup.key")], .enforce, 200, []),
            ([try Self.pin("root-ca.pem"), try Self.pin("next-backup.key")], .enforce, 200, []),
        ]
        for (pins, mode, expected, dispositions) in cases {
            let reports = Reports()
            let policy = try Self.policy(pins, mode: mode, reports: reports)
            #expect(try await Self.fetch(port: server.port, policy: policy) == expected, "\(mode) \(pins)")
            #expect(reports.all.withLock { $0 }.map(\.disposition) == dispositions)
        }
    }

    @Test func reportsArePostedToTheReportURIOnce() async throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let collector = try LoopbackHTTPServer { _ in .status(204) }
        defer { collector.stop() }
        let finished = LockedBox<[Int]>([])
        let uploader = PinViolationReportUploader(completion: { status in finished.withLock { $0.append(status) } })
        let reports = Reports()
        let policy = try Self.policy(
            [try Self.pin("rotated.pem"), try Self.pin("next-backup.key")], mode: .reportOnly, reports: reports,
            reportURI: collector.baseURL + "/pkp", uploader: uploader
        )
        #expect(try await Self.fetch(port: server.port, policy: policy) == 200)
        #expect(try await Self.fetch(port: server.port, policy: policy) == 200)
        #expect(waitUntil(timeout: 10) { finished.withLock { $0 } == [204] })
        #expect(reports.all.withLock { $0.count } == 2, "the handler hears every violation")
        let received = try #require(collector.requests.first)
        #expect(collector.requestCount == 1, "the second, identical violation is not sent again")
        #expect(received.method == "POST")
        #expect(received.target == "/pkp")
        #expect(received.header("Content-Type") == "application/json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(received.body)) as? [String: Any])
        #expect(json["hostname"] as? String == "127.0.0.1")
        #expect(json["port"] as? Int == server.port)
        #expect(json["fw-disposition"] as? String == "report-only")
    }

    @Test func theUploaderDeduplicatesAndRateLimits() throws {
        let seconds = ManualSeconds()
        let uploader = PinViolationReportUploader(
            deduplicationInterval: 100, maximumUploadsPerInterval: 2, rateInterval: 10, clock: seconds.clock
        )
        let chain = try Certificate.certificates(pemFile: TLSFixtures.path("valid-ecdsa-chain.pem"))
        func report(host: String, uri: String? = "http://127.0.0.1:9/pkp") throws -> PinViolationReport {
            let trust = ServerTrust(certificateChain: chain, host: host, anchors: .certificates([]),
                                    verificationTime: chain[0].notBefore, port: 443)
            let set = try PinSet(host: host, pins: [try Self.pin("rotated.pem"), try Self.pin("next-backup.key")],
                                 reportURI: uri)
            return PinViolationReport(trust: trust, pinSet: set, validatedChain: chain)
        }
        #expect(uploader.submit(try report(host: "a.test", uri: nil)) == .noReportURI)
        #expect(uploader.submit(try report(host: "a.test", uri: "file:///etc/passwd")) == .noReportURI)
        #expect(uploader.submit(try report(host: "a.test")) == .sent)
        #expect(uploader.submit(try report(host: "a.test")) == .duplicate)
        #expect(uploader.submit(try report(host: "b.test")) == .sent)
        #expect(uploader.submit(try report(host: "c.test")) == .rateLimited)
        seconds.now.withLock { $0 = 10 }
        #expect(uploader.submit(try report(host: "c.test")) == .sent, "a new rate window")
        #expect(uploader.submit(try report(host: "a.test")) == .duplicate)
        seconds.now.withLock { $0 = 100 }
        #expect(uploader.submit(try report(host: "a.test")) == .sent, "the duplicate window is over")
    }
}
