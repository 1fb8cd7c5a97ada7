import Foundation
import Testing
import TestSupport

// fwcurl's pinning-lab flags against `openssl s_server` serving the private fixtures: --pinnedpubkey with
// --pin-report-only and --pin-report, --show-pins, --crlfile and --cert-status, with curl's exit codes
// (90 enforced pin mismatch, 60 revoked, 91 failed --cert-status, 0 in report-only mode).

@Suite struct FwcurlPinningTests {
    static func pin(_ file: String) throws -> String {
        try #require(try TLSFixtures.readmePins()[file] ?? TLSFixtures.readmePins("pinning/README.md")[file])
    }

    static func url(_ server: OpenSSLServer) -> String { "https://127.0.0.1:\(server.port)/" }

    static let trustFixtures = ["-s", "-o", "/dev/null", "--cacert", TLSFixtures.path("root-ca.pem")]

    /// The JSON objects of a --pin-report output, one a line.
    static func reports(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func anEnforcedMismatchExits90AndIsReported() throws {
        let server = try OpenSSLServer.start()
        let directory = try TemporaryDirectory()
        let file = directory.path + "/reports.jsonl"
        let run = try Fwcurl.run(Self.trustFixtures + [
            "--pinnedpubkey", try Self.pin("rotated.pem"), "--pin-report", file, Self.url(server),
        ])
        #expect(run.status == 90, "\(run.stderr)")
        let reports = try Self.reports(try String(contentsOfFile: file, encoding: .utf8))
        #expect(reports.count == 1)
        #expect(reports.first?["fw-disposition"] as? String == "enforced")
        #expect(reports.first?["port"] as? Int == server.port)
        #expect(reports.first?["hostname"] as? String == "127.0.0.1")
        #expect((reports.first?["served-certificate-chain"] as? [String])?.count == 2)
        #expect((reports.first?["validated-certificate-chain"] as? [String])?.count == 3)
    }

    @Test func reportOnlyProceedsAndWritesTheReportToStdout() throws {
        let server = try OpenSSLServer.start()
        let run = try Fwcurl.run(Self.trustFixtures + [
            "--pinnedpubkey", try Self.pin("rotated.pem"), "--pin-report-only", "--pin-report", "-", Self.url(server),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let reports = try Self.reports(run.text)
        #expect(reports.count == 1)
        #expect(reports.first?["fw-disposition"] as? String == "report-only")
        let known = try Self.pin("rotated.pem").dropFirst("sha256//".count)
        #expect(reports.first?["known-pins"] as? [String] == ["pin-sha256=\"\(known)\""])
        #expect(run.stderr.contains("reported only"))
    }

    @Test func aMatchingPinWritesNoReport() throws {
        let server = try OpenSSLServer.start()
        let pins = try Self.pin("rotated.pem") + ";" + Self.pin("valid-ecdsa.pem")
        let run = try Fwcurl.run(Self.trustFixtures + [
            "--pinnedpubkey", pins, "--pin-report", "-", Self.url(server),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text.isEmpty)
    }

    @Test func showPinsListsEveryServedCertificate() throws {
        let server = try OpenSSLServer.start()
        let run = try Fwcurl.run(Self.trustFixtures + ["--show-pins", Self.url(server)])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        let leaf = try #require(lines.first { $0.contains(try Self.pin("valid-ecdsa.pem")) })
        #expect(leaf.contains("CN=localhost") || leaf.contains("CN = localhost"))
        let intermediate = try #require(lines.first { $0.contains(try Self.pin("intermediate-ca.pem")) })
        #expect(intermediate.contains("Intermediate CA"))
    }

    @Test(arguments: [("revoked.pem", Int32(60)), ("valid-ecdsa.pem", 0), ("pinning/rotated.pem", 0)])
    func crlfileRefusesARevokedLeaf(_ certificate: String, _ status: Int32) throws {
        let server = try OpenSSLServer.start(certificate: certificate)
        let run = try Fwcurl.run(Self.trustFixtures + [
            "--crlfile", TLSFixtures.path("pinning/intermediate-ca.crl.pem"), Self.url(server),
        ])
        #expect(run.status == status, "\(run.stderr)")
        if status == 60 { #expect(run.stderr.contains("revoked")) }
    }

    @Test(arguments: [
        ("valid-ecdsa.pem", Optional("ocsp-valid-ecdsa-good.der"), Int32(0)),
        ("valid-ecdsa.pem", nil, 91),
        ("revoked.pem", "ocsp-revoked.der", 91),
        ("valid-ecdsa.pem", "ocsp-revoked.der", 91),
    ])
    func certStatusRequiresAGoodStaple(_ certificate: String, _ staple: String?, _ status: Int32) throws {
        let extra = staple.map { ["-status_file", TLSFixtures.path($0)] } ?? []
        let server = try OpenSSLServer.start(certificate: certificate, extra: extra)
        let run = try Fwcurl.run(Self.trustFixtures + ["--cert-status", Self.url(server)])
        #expect(run.status == status, "\(run.stderr)")
    }

    @Test(arguments: [
        ["--pin-report-only", "https://127.0.0.1:1/"],
        ["--crlfile", "/nonexistent/crl.pem", "https://127.0.0.1:1/"],
    ])
    func misusedFlagsAreUsageErrors(_ arguments: [String]) throws {
        let run = try Fwcurl.run(arguments)
        #expect(run.status == 2, "\(run.stderr)")
    }

    @Test func aFileWithoutACRLIsAUsageError() throws {
        let run = try Fwcurl.run(["--crlfile", TLSFixtures.path("valid-ecdsa.pem"), "https://127.0.0.1:1/"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--crlfile"))
    }
}
