import Foundation
import Testing
import TestSupport

// The fwget binary (built next to the test bundle) run as a user runs it, against loopback HTTP servers and
// `openssl s_server`: the --json object, -o, -d, -L, and fwcurl's exit codes.
@Suite struct FwgetTests {
    struct Run: Sendable {
        var status: Int32
        var stdout: Data
        var stderr: String
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: stdout)) as? [String: Any] }
    }

    /// Runs fwget and waits for it on a thread of its own (`onOwnThread`), not on a cooperative thread.
    static func fwget(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
        try await onOwnThread { try run(arguments, environment: environment) }
    }

    private static func run(_ arguments: [String], environment: [String: String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("fwget")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        if !waitUntil(timeout: 30, { !process.isRunning }) { process.terminate() }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func httpJSONObjectHasFwcurlsShape() async throws {
        let server = try LoopbackHTTPServer { _ in .ok("hi there", headers: [("X-A", "1"), ("X-A", "2")]) }
        defer { server.stop() }
        let run = try await Self.fwget(["--json", server.baseURL + "/"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(run.json)
        #expect(json["status"] as? Int == 200)
        #expect(json["body_base64"] as? String == Data("hi there".utf8).base64EncodedString())
        let headers = try #require(json["headers"] as? [[String]])
        #expect(headers.filter { $0[0] == "X-A" }.map { $0[1] } == ["1", "2"])
        #expect(json["trailers"] as? [[String]] == [])
        #expect(json["tls"] == nil)
    }

    @Test func outputFileDataMethodAndHeaders() async throws {
        let server = try LoopbackHTTPServer { request in
            .ok("\(request.method) \(request.header("X-Test") ?? "-") \(String(decoding: request.body, as: UTF8.self))")
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "fwget")
        let run = try await Self.fwget(["-o", directory.file("out"), "-H", "X-Test: yes", "-d", "a=1", "-d", "b=2",
                                  "-X", "PUT", server.baseURL + "/"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: directory.file("out"), encoding: .utf8) == "PUT yes a=1&b=2")
        #expect(server.requests.first?.header("Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func redirectsOnlyWithL() async throws {
        let server = try LoopbackHTTPServer { request in
            request.target == "/" ? .status(301, headers: [("Location", "/moved")]) : .ok("moved")
        }
        defer { server.stop() }
        let plain = try await Self.fwget(["--json", server.baseURL + "/"])
        #expect(plain.json?["status"] as? Int == 301)
        let following = try await Self.fwget(["-L", server.baseURL + "/"])
        #expect(following.status == 0)
        #expect(String(decoding: following.stdout, as: UTF8.self) == "moved")
    }

    @Test func httpsWithCacertReportsTLSAndPinMismatchExits90() async throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let url = "https://localhost:\(server.port)/"
        let ok = try await Self.fwget(["--json", "--cacert", TLSFixtures.path("root-ca.pem"), url])
        #expect(ok.status == 0, "\(ok.stderr)")
        let tls = try #require(ok.json?["tls"] as? [String: Any])
        #expect(tls["trust"] as? String == "default")
        #expect((tls["version"] as? String)?.hasPrefix("TLSv1.") == true)

        let fromEnvironment = try await Self.fwget(["-v", url], environment: ["SSL_CERT_FILE": TLSFixtures.path("root-ca.pem")])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(fromEnvironment.stderr.contains("* trust store: \(TLSFixtures.path("root-ca.pem")) (SSL_CERT_FILE bundle)"))

        let pin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let pinned = try await Self.fwget(["--json", "--cacert", TLSFixtures.path("root-ca.pem"), "--pinnedpubkey", pin, url])
        #expect(pinned.status == 90)
        let error = try #require(pinned.json?["error"] as? [String: Any])
        #expect((error["tls"] as? [String: Any])?["trust"] as? String == "pinned")

        let untrusted = try await Self.fwget(["--cacert", TLSFixtures.path("unknown-root-ca.pem"), url])
        #expect(untrusted.status == 60)
        let insecure = try await Self.fwget(["-k", "--cacert", TLSFixtures.path("unknown-root-ca.pem"), url])
        #expect(insecure.status == 0)
    }

    @Test func exitCodes() async throws {
        let refusing = try RefusingPort()
        let refused = try await Self.fwget(["http://127.0.0.1:\(refusing.port)/"])
        #expect(refused.status == 7)
        #expect(try await Self.fwget(["http://ho st/"]).status == 3)
        #expect(try await Self.fwget(["--bogus", "http://127.0.0.1/"]).status == 2)
        #expect(try await Self.fwget(["-o", "/nonexistent-dir/x", "http://127.0.0.1:\(refusing.port)/"]).status == 23)
        let slow = try LoopbackHTTPServer { _ in .init(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8), delay: 10) }
        defer { slow.stop() }
        #expect(try await Self.fwget(["--max-time", "0.3", slow.baseURL + "/"]).status == 28)
    }
}
