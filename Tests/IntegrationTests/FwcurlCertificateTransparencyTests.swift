import Foundation
import Testing
import TestSupport

// fwcurl's Certificate Transparency flags against `openssl s_server` serving the private fixtures: SCTs
// from the TLS extension (-serverinfo), the certificate (embedded-sct.pem) and a stapled OCSP response
// (-status_file). `--ct-log-list` alone reports what was found in --json's `tls.ct` (from the task's
// transaction metrics); `--require-ct` also refuses too few distinct logs (exit 60).

@Suite struct FwcurlCertificateTransparencyTests {
    static let logList = TLSFixtures.path("pinning/ct-logs.cnf")

    static func run(_ serverinfo: String?, certificate: String = "valid-ecdsa.pem", staple: String? = nil,
                    require: Bool = true, extra: [String] = []) throws -> Fwcurl.Run {
        var options = serverinfo.map {
            ["-serverinfo", TLSFixtures.path("pinning/valid-ecdsa.sct-\($0).serverinfo.pem")]
        } ?? []
        if let staple { options += ["-status_file", TLSFixtures.path("pinning/ocsp-valid-ecdsa.sct-\(staple).der")] }
        let server = try OpenSSLServer.start(certificate: certificate, extra: options)
        defer { server.stop() }
        return try Fwcurl.run(["--json", "-s", "--cacert", TLSFixtures.path("root-ca.pem")]
            + (require ? ["--require-ct"] : []) + ["--ct-log-list", logList] + extra
            + ["https://127.0.0.1:\(server.port)/"])
    }

    /// The `tls.ct` object of a run's --json, on success or failure.
    static func ct(_ run: Fwcurl.Run) throws -> [String: Any] {
        let json = try #require(run.json)
        let tls = (json["tls"] ?? (json["error"] as? [String: Any])?["tls"]) as? [String: Any]
        return try #require(tls?["ct"] as? [String: Any])
    }

    static func sources(_ ct: [String: Any]) -> [String] {
        ((ct["scts"] as? [[String: Any]]) ?? []).map { "\($0["source"] ?? "") \($0["status"] ?? "")" }.sorted()
    }

    @Test(arguments: [
        ("two-logs", [String](), Int32(0), 2), ("one-log", [], 60, 1), ("one-log", ["--ct-min-logs", "1"], 0, 1),
        ("unknown-log", [], 60, 0),
    ])
    func requireCTCountsDistinctLogs(_ serverinfo: String, _ extra: [String], _ status: Int32, _ valid: Int) throws {
        let run = try Self.run(serverinfo, extra: extra)
        #expect(run.status == status, "\(run.stderr)")
        let ct = try Self.ct(run)
        #expect(ct["valid_logs"] as? Int == valid)
        #expect(ct["required_logs"] as? Int == (extra.isEmpty ? 2 : 1))
        #expect(ct["policy_met"] as? Bool == (status == 0))
        #expect((ct["scts"] as? [[String: Any]])?.first?["source"] as? String == "tls-extension")
    }

    @Test func anUnknownLogIsReportedAsSuchWithoutRequireCT() throws {
        let run = try Self.run("unknown-log", require: false)
        #expect(run.status == 0, "\(run.stderr)")
        let ct = try Self.ct(run)
        #expect(Self.sources(ct) == ["tls-extension unknown-log"])
        #expect(ct["valid_logs"] as? Int == 0)
        #expect(ct["policy_met"] as? Bool == false)
        let logID = (ct["scts"] as? [[String: Any]])?.first?["log_id"] as? String
        #expect(logID.flatMap { Data(base64Encoded: $0) }?.count == 32)
    }

    @Test func embeddedSCTsCountTowardThePolicy() throws {
        let run = try Self.run(nil, certificate: "pinning/embedded-sct.pem")
        #expect(run.status == 0, "\(run.stderr)")
        let ct = try Self.ct(run)
        #expect(Self.sources(ct) == ["certificate valid", "certificate valid"])
        #expect(ct["policy_met"] as? Bool == true)
    }

    @Test(arguments: [
        (Optional<String>.none, "two-logs", ["ocsp valid", "ocsp valid"]),
        ("one-log", "log-b", ["ocsp valid", "tls-extension valid"]),
    ])
    func sctsOfAStapledOCSPResponseCountTowardThePolicy(_ serverinfo: String?, _ staple: String,
                                                        _ expected: [String]) throws {
        let run = try Self.run(serverinfo, staple: staple)
        #expect(run.status == 0, "\(run.stderr)")
        let ct = try Self.ct(run)
        #expect(Self.sources(ct) == expected)
        #expect(ct["valid_logs"] as? Int == 2)
        #expect(ct["policy_met"] as? Bool == true)
    }

    @Test func noSCTsExits60() throws {
        let run = try Self.run(nil)
        #expect(run.status == 60, "\(run.stderr)")
        #expect(run.stderr.contains("--require-ct"))
    }

    @Test(arguments: [["--require-ct", "https://127.0.0.1:1/"],
                      ["--ct-log-list", TLSFixtures.path("valid-ecdsa.pem"), "https://127.0.0.1:1/"],
                      ["--require-ct", "--ct-log-list", TLSFixtures.path("valid-ecdsa.pem"), "https://127.0.0.1:1/"]])
    func misusedCTFlagsAreUsageErrors(_ arguments: [String]) throws {
        #expect(try Fwcurl.run(arguments).status == 2)
    }
}
