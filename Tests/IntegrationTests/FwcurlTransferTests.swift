import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

// fwcurl's transfer flags (-o streaming in place, -C, -T, -L / --max-redirs, --compressed, the progress
// meter), run as a subprocess (FwcurlRunner.swift) against nginx, Python's http.server and loopback servers.
@Suite struct FwcurlTransferTests {
    /// `count` bytes of a fixed pattern.
    private static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    }

    /// A fresh path in the temporary directory, removed by `cleanUp`.
    private static func temporaryPath(_ name: String = "out") -> String {
        NSTemporaryDirectory() + "/fwcurl-\(UUID().uuidString)-\(name)"
    }

    private static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    // MARK: -o

    @Test func outputToDevNullLeavesTheCharacterDevice() throws {
        try #require(Self.fileType("/dev/null") == S_IFCHR,
                     "this machine's /dev/null is not a device (an older fwcurl replaced it): mknod -m 666 c 1 3")
        let server = try LoopbackHTTPServer { _ in .ok("discarded") }
        defer { server.stop() }
        let run = try Fwcurl.run(["-o", "/dev/null", server.baseURL + "/"])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.isEmpty, "no progress meter when stderr is not a terminal")
        #expect(Self.fileType("/dev/null") == S_IFCHR)
    }

    @Test func outputIntoAFIFOWritesThroughIt() throws {
        let fifo = Self.temporaryPath("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // A reader first (non-blocking), so fwcurl's open for writing does not wait.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        let server = try LoopbackHTTPServer { _ in .ok("through the pipe") }
        defer { server.stop() }
        let run = try Fwcurl.run(["-o", fifo, server.baseURL + "/"])
        #expect(run.status == 0, "\(run.stderr)")
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(reader, &buffer, buffer.count)
        #expect(count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) == "through the pipe" : false)
        #expect(Self.fileType(fifo) == S_IFIFO)
    }

    @Test func outputsPairWithURLsInOrderAndTheRestGoToStdout() throws {
        let server = try LoopbackHTTPServer { request in .ok("body of \(request.target)") }
        defer { server.stop() }
        let first = Self.temporaryPath()
        defer { unlink(first) }
        let run = try Fwcurl.run(["-o", first, server.baseURL + "/one", server.baseURL + "/two"])
        #expect(run.status == 0)
        #expect(try String(contentsOfFile: first, encoding: .utf8) == "body of /one")
        #expect(run.text == "body of /two")
    }

    // MARK: -C

    @Test func continueAtAgainstNginxAppendsTheRestAndAFinishedFileIsDone() throws {
        let data = Self.bytes(300_000)
        let server = try NginxServer(files: ["file.bin": data], serverConfig: "")
        defer { server.stop() }
        let output = Self.temporaryPath()
        defer { unlink(output) }
        try Data(data.prefix(100_000)).write(to: URL(fileURLWithPath: output))

        let resumed = try Fwcurl.run(["-C", "-", "-o", output, server.baseURL + "/file.bin"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(data))
        // nginx logs a request after its response went out.
        let resumedLine = "\"GET /file.bin HTTP/1.1\" 206 range=bytes=100000-"
        _ = waitUntil(timeout: 5) { server.accessLog.contains { $0.hasPrefix(resumedLine) } }
        #expect(server.accessLog.contains { $0.hasPrefix(resumedLine) }, "\(server.accessLog)")

        let again = try Fwcurl.run(["-C", "-", "-o", output, server.baseURL + "/file.bin"])
        #expect(again.status == 0, "416 for a complete file is success: \(again.stderr)")
        let completeLine = "\"GET /file.bin HTTP/1.1\" 416 range=bytes=300000-"
        _ = waitUntil(timeout: 5) { server.accessLog.last?.hasPrefix(completeLine) == true }
        #expect(server.accessLog.last?.hasPrefix(completeLine) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(data))
    }

    @Test func continueAtAgainstAServerThatIgnoresRangesStartsOver() throws {
        let data = Self.bytes(200_000)
        let server = try PythonHTTPServer(files: ["file.bin": data])
        defer { server.stop() }
        let output = Self.temporaryPath()
        defer { unlink(output) }
        try Data(Self.bytes(50_000).reversed()).write(to: URL(fileURLWithPath: output))
        let run = try Fwcurl.run(["-C", "-", "-o", output, server.baseURL + "/file.bin"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("ignored the range"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(data))
    }

    @Test func continueAtNeedsAnOutputFile() throws {
        let run = try Fwcurl.run(["-C", "-", "http://127.0.0.1:9/"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("-C needs an -o FILE"))
    }

    // MARK: -T

    @Test func uploadFileStreamsAPutAndAppendsTheNameToADirectoryURL() throws {
        let sink = try PythonHTTPServer.uploadSink()
        defer { sink.stop() }
        let file = Self.temporaryPath("upload me.bin")
        defer { unlink(file) }
        try Data(Self.bytes(1_000_000)).write(to: URL(fileURLWithPath: file))
        let digest = try Self.sha256(of: file)

        let run = try Fwcurl.run(["-T", file, sink.baseURL + "/dir/"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(run.json, "\(run.text)")
        #expect(json["method"] as? String == "PUT")
        #expect(json["path"] as? String == "/dir/" + (file as NSString).lastPathComponent
            .replacingOccurrences(of: " ", with: "%20"))
        #expect(json["length"] as? Int == 1_000_000)
        #expect(json["sha256"] as? String == digest)

        let named = try Fwcurl.run(["-T", file, "-X", "POST", sink.baseURL + "/named"])
        #expect(named.json?["method"] as? String == "POST")
        #expect(named.json?["path"] as? String == "/named")
        #expect(named.json?["sha256"] as? String == digest)
    }

    private static func sha256(of path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix { !$0.isWhitespace })
    }

    // MARK: -L and --max-redirs

    @Test func redirectsAreFollowedOnlyWithLocationAndUpToMaxRedirs() throws {
        let server = try NginxServer(files: ["file.bin": Array("the target\n".utf8)], serverConfig: """
            location = /moved { return 302 /file.bin; }
            location = /hop1 { return 302 /hop2; }
            location = /hop2 { return 302 /file.bin; }
            """)
        defer { server.stop() }

        let unfollowed = try Fwcurl.run(["-i", server.baseURL + "/moved"])
        #expect(unfollowed.status == 0)
        #expect(unfollowed.text.hasPrefix("HTTP/1.1 302"))
        #expect(unfollowed.text.contains("Location: "))
        #expect(!unfollowed.text.contains("the target"))

        let followed = try Fwcurl.run(["-L", server.baseURL + "/moved"])
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.text == "the target\n")

        let heads = try Fwcurl.run(["-L", "-i", server.baseURL + "/moved"])
        #expect(heads.text.hasPrefix("HTTP/1.1 302"), "-i shows every response of the chain")
        #expect(heads.text.contains("\r\n\r\nHTTP/1.1 200 OK\r\n"))
        #expect(heads.text.hasSuffix("\r\n\r\nthe target\n"))

        let tooMany = try Fwcurl.run(["-L", "--max-redirs", "1", server.baseURL + "/hop1"])
        #expect(tooMany.status != 0)
        #expect(tooMany.stderr.contains("Maximum (1) redirects followed"))
        #expect(tooMany.stdout.isEmpty)
        let asJSON = try Fwcurl.run(["--json", "-L", "--max-redirs", "1", server.baseURL + "/hop1"])
        let error = try #require(asJSON.json?["error"] as? [String: Any])
        #expect(error["code"] as? Int == URLError.Code.httpTooManyRedirects.rawValue)

        let enough = try Fwcurl.run(["-L", "--max-redirs", "2", server.baseURL + "/hop1"])
        #expect(enough.status == 0)
        #expect(enough.text == "the target\n")
    }

    // MARK: --compressed

    @Test func compressedAsksForGzipAndDecodesWithoutItTheBytesComeAsStored() throws {
        let text = String(repeating: "FWNetworking compresses well. ", count: 2_000)
        let server = try NginxServer(files: ["text.txt": Array(text.utf8)], serverConfig: "")
        defer { server.stop() }
        func fields(_ run: Fwcurl.Run) -> [[String]] { run.json?["headers"] as? [[String]] ?? [] }
        func body(_ run: Fwcurl.Run) -> String {
            String(decoding: Data(base64Encoded: run.json?["body_base64"] as? String ?? "") ?? Data(), as: UTF8.self)
        }

        let compressed = try Fwcurl.run(["--compressed", "-v", "--json", server.baseURL + "/text.txt"])
        #expect(compressed.stderr.contains("> Accept-Encoding: deflate, gzip"))
        #expect(fields(compressed).contains(["Content-Encoding", "gzip"]))
        #expect(body(compressed) == text)

        let plain = try Fwcurl.run(["-v", "--json", server.baseURL + "/text.txt"])
        #expect(plain.stderr.contains("> Accept-Encoding: identity"))
        #expect(!fields(plain).contains { $0.first?.lowercased() == "content-encoding" })
        #expect(fields(plain).contains(["Content-Length", String(text.utf8.count)]))
        #expect(body(plain) == text)
    }

    // MARK: Progress meter

    @Test(arguments: [(700, "100%  700 B / 700 B  "), (300_000, "100%  293.0 KiB / 293.0 KiB  "),
                      (2_621_440, "100%  2.5 MiB / 2.5 MiB  ")])
    func theProgressMeterShowsOnATerminalForOutputFiles(_ size: Int, _ finalLine: String) throws {
        let body = Self.bytes(size)
        let server = try LoopbackHTTPServer { _ in .status(200, body: body) }
        defer { server.stop() }
        let output = Self.temporaryPath()
        defer { unlink(output) }
        let shown = try Fwcurl.runOnTerminal(["-o", output, server.baseURL + "/"])
        #expect(shown.status == 0)
        #expect(shown.terminal.contains("\r" + finalLine), "\(shown.terminal.debugDescription)")
        #expect(shown.terminal.hasSuffix("/s\r\n") || shown.terminal.hasSuffix(" \r\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(body))

        let silent = try Fwcurl.runOnTerminal(["-s", "-o", output, server.baseURL + "/"])
        #expect(silent.status == 0)
        #expect(silent.terminal.isEmpty)
        let toStdout = try Fwcurl.runOnTerminal([server.baseURL + "/"])
        #expect(toStdout.terminal.isEmpty, "no meter when the body goes to stdout")
    }

    @Test func theProgressMeterWithoutATotalAndForAnUpload() throws {
        let server = try LoopbackHTTPServer { request in
            request.method == "PUT" ? .ok("stored") : .chunked(["streamed ", "without ", "a length"])
        }
        defer { server.stop() }
        let output = Self.temporaryPath()
        defer { unlink(output) }
        let chunked = try Fwcurl.runOnTerminal(["-o", output, server.baseURL + "/"])
        #expect(chunked.terminal.hasPrefix("\r25 B  "), "\(chunked.terminal.debugDescription)")
        #expect(!chunked.terminal.contains("%"))

        try Data(Self.bytes(1_000_000)).write(to: URL(fileURLWithPath: output))
        let upload = try Fwcurl.runOnTerminal(["-T", output, server.baseURL + "/put"])
        #expect(upload.status == 0)
        #expect(upload.terminal.contains("\r100%  976.6 KiB / 976.6 KiB  "), "\(upload.terminal.debugDescription)")
        #expect(server.requests.last?.body.count == 1_000_000)
    }
}
