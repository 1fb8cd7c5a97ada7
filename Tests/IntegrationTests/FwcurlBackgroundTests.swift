import Foundation
import FWTLS
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

// Issue 25, item 4: `fwcurl --background ID -o FILE URL` killed (SIGKILL) at about half of a 64 MiB download
// finishes when the same command runs again, and the server's log shows that the second run fetched only
// the rest (Range from where the journal stopped). A background run applies the TLS flags as any transfer
// (-k, --cacert, --pinnedpubkey against `openssl s_server`, with curl's exit codes) and draws the progress
// meter on a terminal.

@Suite struct FwcurlBackgroundTests {
    static var fwcurlPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fwcurl").path
    }

    /// The bytes of the partial files in the journal directory.
    static func partialBytes(in directory: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".part") }.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? 0)
        }
    }

    @Test func aKilledBackgroundDownloadFinishesWhenRunAgain() throws {
        let size = 64 << 20
        let server = try PythonHTTPServer.rangeFile(size: size, seed: 3)
        let work = try TemporaryDirectory(prefix: "fw-bg-curl")
        let cache = work.file("cache")
        let journal = cache + "/fwnetworking/background/weights"
        let output = work.file("weights.bin")
        let arguments = ["--background", "weights", "-s", "-o", output, "\(server.baseURL)/file.bin"]
        let child = try SpawnedProcess.spawn(["env", "XDG_CACHE_HOME=\(cache)", Self.fwcurlPath] + arguments,
                                             logPath: work.file("first.log"))
        let reached = waitUntil(timeout: 60) { Self.partialBytes(in: journal) >= size / 2 || child.hasExited() }
        kill(child.pid, SIGKILL)
        _ = waitUntil(timeout: 10) { child.hasExited() }
        #expect(reached, "\(child.log)")
        #expect(!FileManager.default.fileExists(atPath: output))

        try server.setRangeDelay(0)
        let second = try Fwcurl.run(arguments, timeout: 120, environment: ["XDG_CACHE_HOME": cache])
        #expect(second.status == 0, "\(second.stderr)")
        let digest = { (path: String) in (try? Data(contentsOf: URL(fileURLWithPath: path))).map(Digest.sha256.hexHash) }
        #expect(digest(output) == digest(server.rangeFilePath))
        let requests = server.rangeRequests.filter { $0.hasPrefix("GET") }
        #expect(requests.count == 2, "\(requests)")
        let start = requests.last.flatMap { $0.firstMatch(of: /range=bytes=(\d+)- if-range="v1" status=206/) }
            .flatMap { Int($0.1) } ?? -1
        #expect(start >= size / 2 - (5 << 20) && start < size, "\(requests)")
        #expect(server.rangeRequests.contains("sent \(start)-\(size)"))
        // Nothing left in the journal but its lock.
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: journal)) ?? []) == ["lock"])

        // `--background` without an identifier is a usage error.
        let parsed = try Fwcurl.run(["--background"], environment: ["XDG_CACHE_HOME": cache])
        #expect(parsed.status == 2)
    }

    // MARK: TLS flags and the meter

    /// A run of `arguments` in a background session of its own (a fresh identifier and cache directory).
    static func background(_ arguments: [String], output: String, work: TemporaryDirectory) throws -> Fwcurl.Run {
        try Fwcurl.run(["--background", UUID().uuidString, "-s", "-o", output] + arguments,
                       environment: ["XDG_CACHE_HOME": work.file("cache")])
    }

    @Test func minusKAndCacertApplyToABackgroundDownload() throws {
        let server = try OpenSSLServer.start()
        let work = try TemporaryDirectory(prefix: "fw-bg-curl")
        let url = "https://127.0.0.1:\(server.port)/"
        let output = work.file("page.html")

        // The fixtures' root is not a system anchor: refused (60), no file, no record left behind.
        let refused = try Self.background([url], output: output, work: work)
        #expect(refused.status == 60, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))

        let insecure = try Self.background(["-k", url], output: output, work: work)
        #expect(insecure.status == 0, "\(insecure.stderr)")
        let page = try String(contentsOfFile: output, encoding: .utf8)
        #expect(page.contains("s_server"), "\(page.prefix(200))")
        try FileManager.default.removeItem(atPath: output)

        let trusted = try Self.background(["--cacert", TLSFixtures.path("root-ca.pem"), url], output: output,
                                          work: work)
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(FileManager.default.fileExists(atPath: output))
        // Every journal left only its lock.
        let journals = work.file("cache/fwnetworking/background")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: journals)) ?? [] {
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: journals + "/" + name)) ?? []) == ["lock"])
        }
    }

    @Test func aPinMismatchFailsABackgroundDownloadWith90() throws {
        let server = try OpenSSLServer.start()
        let work = try TemporaryDirectory(prefix: "fw-bg-curl")
        let output = work.file("page.html")
        let pin = try FwcurlPinningTests.pin("rotated.pem")
        let run = try Self.background(["--cacert", TLSFixtures.path("root-ca.pem"), "--pinnedpubkey", pin,
                                       "https://127.0.0.1:\(server.port)/"], output: output, work: work)
        #expect(run.status == 90, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // With -k the pin still applies (as with curl).
        let insecure = try Self.background(["-k", "--pinnedpubkey", pin, "https://127.0.0.1:\(server.port)/"],
                                           output: output, work: work)
        #expect(insecure.status == 90, "\(insecure.stderr)")
    }

    @Test func aBackgroundDownloadDrawsTheProgressMeterOnATerminal() throws {
        let body = [UInt8](repeating: 0x61, count: 300_000)
        let server = try LoopbackHTTPServer { _ in .status(200, body: body) }
        defer { server.stop() }
        let work = try TemporaryDirectory(prefix: "fw-bg-curl")
        let output = work.file("body.bin")
        let shown = try Fwcurl.runOnTerminal(["--background", UUID().uuidString, "-o", output, server.baseURL + "/"],
                                             environment: ["XDG_CACHE_HOME": work.file("cache")])
        #expect(shown.status == 0, "\(shown.terminal)")
        #expect(shown.terminal.contains("\r100%  293.0 KiB / 293.0 KiB  "), "\(shown.terminal.debugDescription)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(body))
    }
}
