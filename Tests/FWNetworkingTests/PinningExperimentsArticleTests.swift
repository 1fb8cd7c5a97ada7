import Foundation
import FWNetworking
import Testing
import TestSupport

// The worked rotation of the DocC article Sources/FWNetworking/FWNetworking.docc/PinningExperiments.md,
// run against `openssl s_server` on loopback: the old key with its backup, the server's switch to the
// backup key, then the new set (new key + next backup) measured in report-only mode and enforced.

@Suite struct PinningExperimentsArticleTests {
    static func pin(_ file: String) throws -> String {
        try SecurityPolicyPinSetsTests.pin(file)
    }

    /// The outcome of one GET with `set` (status or URLError code) and the dispositions reported.
    static func fetch(port: Int, set: PinSet) async throws -> (Int, [PinViolationReport.Disposition]) {
        let reports = SecurityPolicyPinSetsTests.Reports()
        let policy = SecurityPolicy.default
        policy.pinSets = [set]
        policy.pinViolationHandler = reports.handler
        policy.pinViolationReportUploader = nil
        let status = try await SecurityPolicyPinSetsTests.fetch(port: port, policy: policy)
        return (status, reports.all.withLock { $0 }.map(\.disposition))
    }

    @Test func aKeyRotationWithABackupPin() async throws {
        let old = try Self.pin("valid-ecdsa.pem")
        let rotated = try Self.pin("rotated.pem")
        let nextBackup = try Self.pin("next-backup.key")
        let refused = URLError.Code.serverCertificateUntrusted.rawValue

        let oldServer = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        defer { oldServer.stop() }
        let rotatedServer = try OpenSSLServer.start(certificate: "pinning/rotated.pem")
        defer { rotatedServer.stop() }

        // 1 and 2: the shipped set passes the old server and, on its backup pin, the rotated one.
        let before = try PinSet(host: "127.0.0.1", pins: [old, rotated])
        #expect(try await Self.fetch(port: oldServer.port, set: before) == (200, []))
        #expect(try await Self.fetch(port: rotatedServer.port, set: before) == (200, []))

        // 3: the new set, measured first (report-only), then enforced.
        let measuring = try PinSet(host: "127.0.0.1", pins: [rotated, nextBackup], mode: .reportOnly)
        #expect(try await Self.fetch(port: oldServer.port, set: measuring) == (200, [.reportOnly]))
        #expect(try await Self.fetch(port: rotatedServer.port, set: measuring) == (200, []))
        let after = try PinSet(host: "127.0.0.1", pins: [rotated, nextBackup])
        #expect(try await Self.fetch(port: oldServer.port, set: after) == (refused, [.enforced]))
        #expect(try await Self.fetch(port: rotatedServer.port, set: after) == (200, []))

        // A set that has expired (its expiration a day before the old leaf was issued: a fixture date)
        // reports the old key but lets it through.
        let leaf = try Certificate.certificates(pemFile: TLSFixtures.path("valid-ecdsa.pem"))[0]
        let expired = try PinSet(
            host: "127.0.0.1", pins: [rotated, nextBackup], expirationTime: leaf.notBefore - 86_400
        )
        #expect(try await Self.fetch(port: oldServer.port, set: expired) == (200, [.expired]))
    }
}
