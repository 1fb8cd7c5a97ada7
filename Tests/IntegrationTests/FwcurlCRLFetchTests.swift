import Foundation
import Testing
import TestSupport

// fwcurl --crl-fetch / --crl-fetch-hard-fail against `openssl s_server` serving a leaf whose CRL
// distribution point is http://crl.fwnetworking.test/intermediate-ca.crl (Fixtures/tls/pinning). The
// python3 CRL server on 127.0.0.1 answers that name as the `http_proxy` fwcurl reads from its environment
// (https_proxy unset: the https request to s_server goes direct), so nothing leaves the machine.

@Suite struct FwcurlCRLFetchTests {
    static let trustFixtures = ["-s", "-o", "/dev/null", "--cacert", TLSFixtures.path("root-ca.pem")]

    static func crl() throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: TLSFixtures.path("pinning/intermediate-ca.crl"))))
    }

    /// fwcurl `flags` against s_server with `leaf`, its CRL server serving `files` (nil: nothing listens).
    static func run(_ leaf: String, files: [String: [UInt8]]?, flags: [String]) throws -> (Fwcurl.Run, [String]) {
        let server = try OpenSSLServer.start(certificate: "pinning/\(leaf).pem")
        defer { server.stop() }
        let distribution = try files.map { try PythonHTTPServer.revocationListServer(files: $0) }
        defer { distribution?.stop() }
        let refusing = distribution == nil ? try RefusingPort() : nil
        defer { refusing?.close() }
        let port = distribution?.port ?? refusing?.port ?? 0
        let run = try Fwcurl.run(trustFixtures + flags + ["https://127.0.0.1:\(server.port)/"],
                                 environment: ["http_proxy": "http://127.0.0.1:\(port)"])
        return (run, distribution?.requestTargets() ?? [])
    }

    @Test(arguments: [("crl-dp-revoked", Int32(60)), ("crl-dp", 0)])
    func aRevokedLeafExits60(_ leaf: String, _ status: Int32) throws {
        let (run, requests) = try Self.run(leaf, files: ["intermediate-ca.crl": try Self.crl()], flags: ["--crl-fetch"])
        #expect(run.status == status, "\(run.stderr)")
        #expect(requests == ["http://crl.fwnetworking.test/intermediate-ca.crl"])
        if status == 60 { #expect(run.stderr.contains("revoked")) }
    }

    @Test(arguments: [("--crl-fetch", Int32(0)), ("--crl-fetch-hard-fail", 60)])
    func aDistributionPointThatIsDownWarnsOrFails(_ flag: String, _ status: Int32) throws {
        let (run, _) = try Self.run("crl-dp-revoked", files: nil, flags: [flag])
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.stderr.contains("--crl-fetch: fetching http://crl.fwnetworking.test/intermediate-ca.crl"))
    }

    @Test func aListOverCrlMaxSizeIsNotUsed() throws {
        let crl = try Self.crl()
        let (run, _) = try Self.run("crl-dp-revoked", files: ["intermediate-ca.crl": crl],
                                    flags: ["--crl-fetch-hard-fail", "--crl-max-size", "\(crl.count - 1)"])
        #expect(run.status == 60, "\(run.stderr)")
        #expect(run.stderr.contains("maximum of \(crl.count - 1) bytes"))
    }

    @Test(arguments: [["--crl-max-size", "0", "https://127.0.0.1:1/"], ["--crl-max-size", "big", "https://127.0.0.1:1/"]])
    func aBadMaximumSizeIsAUsageError(_ arguments: [String]) throws {
        let run = try Fwcurl.run(arguments)
        #expect(run.status == 2, "\(run.stderr)")
    }
}
