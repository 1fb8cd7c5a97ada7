import Foundation
import Testing
import TestSupport

// fwcurl exits with curl's codes (issue 18, item 9), so scripts can tell failures apart.
@Suite struct FwcurlExitCodeTests {
    /// The servers the rows talk to, started once per test.
    final class Servers: Sendable {
        let http: LoopbackHTTPServer
        let silent: ScriptedServer
        let tls: OpenSSLServer
        let refusedPort: Int

        init() throws {
            http = try LoopbackHTTPServer { request in
                switch request.target {
                case "/loop": .status(302, headers: [("Location", "/loop")])
                case "/missing": .status(404, body: Array("no".utf8))
                case "/hundred": .ok(String(repeating: "x", count: 100))
                case "/chunked-hundred":
                    .chunked([String(repeating: "x", count: 60), String(repeating: "y", count: 40)])
                default: .ok("fine")
                }
            }
            silent = try ScriptedServer { connection in
                _ = try connection.readRequest()
                _ = connection.waitForClose(timeout: 10)
            }
            tls = try OpenSSLServer.start()
            let refused = try ScriptedServer { _ in }
            refusedPort = refused.port
            refused.stop()
        }

        func stop() {
            http.stop()
            silent.stop()
            tls.stop()
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let status: Int32
        let arguments: @Sendable (Servers) -> [String]
        var testDescription: String { "\(name) → \(status)" }
    }

    static let rows: [Row] = [
        Row(name: "success", status: 0) { ["-f", $0.http.baseURL + "/"] },
        Row(name: "unknown host", status: 6) { _ in ["http://no-such-host.invalid/"] },
        Row(name: "refused", status: 7) { ["http://127.0.0.1:\($0.refusedPort)/"] },
        Row(name: "timeout", status: 28) { ["--max-time", "1", "http://127.0.0.1:\($0.silent.port)/"] },
        Row(name: "TLS handshake with a plain HTTP server", status: 35) {
            ["https://127.0.0.1:\($0.http.port)/"]
        },
        Row(name: "too many redirects", status: 47) { ["-L", "--max-redirs", "2", $0.http.baseURL + "/loop"] },
        Row(name: "untrusted certificate", status: 60) { ["https://127.0.0.1:\($0.tls.port)/"] },
        Row(name: "pin mismatch", status: 90) {
            ["--cacert", TLSFixtures.path("root-ca.pem"), "--pinnedpubkey",
             "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "https://127.0.0.1:\($0.tls.port)/"]
        },
        Row(name: "HTTP error with --fail", status: 22) { ["-f", $0.http.baseURL + "/missing"] },
        Row(name: "HTTP error without --fail", status: 0) { [$0.http.baseURL + "/missing"] },
        Row(name: "announced length over --max-filesize", status: 63) {
            ["--max-filesize", "50", $0.http.baseURL + "/hundred"]
        },
        Row(name: "streamed length over --max-filesize", status: 63) {
            ["--max-filesize", "50", $0.http.baseURL + "/chunked-hundred"]
        },
        Row(name: "length within --max-filesize", status: 0) {
            ["--max-filesize", "100", $0.http.baseURL + "/hundred"]
        },
        Row(name: "a header value that would inject", status: 3) {
            ["-H", "X-Evil: a\r\nInjected: 1", $0.http.baseURL + "/"]
        },
    ]

    @Test(arguments: rows)
    func exitStatusFollowsCurl(_ row: Row) throws {
        let servers = try Servers()
        defer { servers.stop() }
        let run = try Fwcurl.run(row.arguments(servers), timeout: 20)
        #expect(run.status == row.status, "stderr: \(run.stderr)")
        if row.name.contains("inject") { #expect(servers.http.connectionCount == 0) }
    }
}
