import Foundation
import FWTLS
import Testing
import TestSupport

// fwcurl -F, as curl's: text fields, @FILE parts (streamed, typed by extension unless ;type=, renamed
// by ;filename=), <FILE fields, POST unless -X, the combinations it refuses, and a 64 MiB file (1 GiB with
// FWNETWORKING_UPLOAD_1GIB=1) sent in constant memory: fwcurl's own peak RSS against a run with a one-byte
// file. The bodies are parsed by Python (MultipartEchoServer).
@Suite struct FwcurlFormTests {
    private static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "/fwcurl-form-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func part(_ name: String, filename: String? = nil, type: String? = nil, _ data: [UInt8])
        -> MultipartEchoServer.Part {
        MultipartEchoServer.Part(name: name, filename: filename, contentType: type, length: data.count,
                                 sha256: Digest.sha256.hexHash(data))
    }

    @Test func fieldsFilesAndFileContentsArePosted() throws {
        let server = try MultipartEchoServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let page = Array("<p>hi</p>".utf8)
        let blob = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let note = Array("from a file\n".utf8)
        try Data(page).write(to: URL(fileURLWithPath: directory + "/page.html"))
        try Data(blob).write(to: URL(fileURLWithPath: directory + "/blob.bin"))
        try Data(note).write(to: URL(fileURLWithPath: directory + "/note.txt"))

        let run = try Fwcurl.run([
            "-F", "text=plain value; with a semicolon",
            "-F", "page=@\(directory)/page.html",
            "-F", "blob=@\(directory)/blob.bin;type=image/png;filename=picture.png",
            "-F", "note=<\(directory)/note.txt",
            "-F", "typed=x;type=text/x-custom",
            server.baseURL + "/parse",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let reply = try MultipartEchoServer.reply(run.stdout)
        #expect(reply.method == "POST")
        #expect(reply.parts == [
            Self.part("text", Array("plain value; with a semicolon".utf8)),
            Self.part("page", filename: "page.html", type: "text/html", page),
            Self.part("blob", filename: "picture.png", type: "image/png", blob),
            Self.part("note", note),
            Self.part("typed", type: "text/x-custom", Array("x".utf8)),
        ])
    }

    @Test func methodFromXAndQuotedFileNames() throws {
        let server = try MultipartEchoServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("semi".utf8).write(to: URL(fileURLWithPath: directory + "/a;b.txt"))
        let run = try Fwcurl.run(["-X", "PUT", "-F", "f=@\"\(directory)/a;b.txt\";filename=\"x;y.txt\"",
                                  server.baseURL + "/parse"])
        #expect(run.status == 0, "\(run.stderr)")
        let reply = try MultipartEchoServer.reply(run.stdout)
        #expect(reply.method == "PUT")
        #expect(reply.parts == [Self.part("f", filename: "x;y.txt", type: "text/plain", Array("semi".utf8))])
    }

    static let refusals: [([String], String)] = [
        (["-F", "a=1", "-d", "x"], "-F cannot be used with -d or -T"),
        (["-F", "a=1", "-T", "/etc/hostname"], "-F cannot be used with -d or -T"),
        (["-F", "no-equals"], "is not name=content"),
        (["-F", "=value"], "is not name=content"),
        (["-F", "f=@/no/such/file"], "cannot read /no/such/file"),
        (["-F", "f=</no/such/file"], "cannot read /no/such/file"),
        (["-F", "f=@/etc/hostname;bogus=1"], "cannot read /etc/hostname;bogus=1"),
        (["-F", "f=@/etc/hostname;type=text/plain;bogus=1"], "unknown parameter 'bogus'"),
        (["-F", "f=@\"/etc/hostname"], "unterminated quote"),
    ]

    @Test(arguments: refusals)
    func refusedCommandLines(arguments: [String], message: String) throws {
        let run = try Fwcurl.run(arguments + ["http://127.0.0.1:9/"])
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    // MARK: Constant memory

    @Test func a64MiBFilePartIsStreamedInConstantMemory() throws {
        try uploadLargeFile(size: 64 << 20)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["FWNETWORKING_UPLOAD_1GIB"] == "1",
                   "takes longer than the default suite should; set FWNETWORKING_UPLOAD_1GIB=1"))
    func a1GiBFilePartIsStreamedInConstantMemory() throws {
        try uploadLargeFile(size: 1 << 30)
    }

    /// Sends a `size`-byte file with `fwcurl -F`, checks the server got its exact length and hash, and
    /// bounds how much more fwcurl's peak RSS is than when it sends a one-byte file.
    private func uploadLargeFile(size: Int) throws {
        let server = try MultipartEchoServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try LargeFile.write(path: directory + "/large.bin", size: size)
        try Data([1]).write(to: URL(fileURLWithPath: directory + "/small.bin"))
        let expected = try LargeFile.sha256(path: directory + "/large.bin")

        let small = try MeasuredRun(["-F", "f=@\(directory)/small.bin", server.baseURL + "/stream"])
        let large = try MeasuredRun(["-F", "f=@\(directory)/large.bin", server.baseURL + "/stream"])
        let growth = large.peakRSS - small.peakRSS
        print("fwcurl -F: peak RSS \(small.peakRSS >> 20) MiB with a 1-byte file, \(large.peakRSS >> 20) MiB "
              + "with a \(size >> 20) MiB file (growth \(growth >> 20) MiB, \(growth) bytes)")
        #expect(small.status == 0 && large.status == 0)
        #expect(small.peakRSS > 0 && large.peakRSS > 0, "fwcurl's memory was never sampled")
        let reply = try MultipartEchoServer.reply(large.stdout)
        #expect(reply.parts.first?.length == size)
        #expect(reply.parts.first?.sha256 == expected)
        #expect(growth < 32 << 20, "fwcurl's peak RSS grew by \(growth >> 20) MiB for a \(size >> 20) MiB upload")
    }
}

/// fwcurl run to its end while its peak RSS is sampled.
///
/// The peak comes from VmHWM in /proc/PID/status, read every 5 ms while it runs (VmHWM only grows, so
/// the last reading is the peak up to a few ms before exit). Not `wait4`'s `ru_maxrss`: Linux keeps in
/// it the peak of the address space the child had before `exec`, which for a `posix_spawn`ed child is
/// the test process's own.
struct MeasuredRun {
    var status: Int32
    var peakRSS: Int
    var stdout: Data

    init(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("fwcurl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let statusPath = "/proc/\(process.processIdentifier)/status"
        var peak = 0
        while process.isRunning {
            peak = max(peak, Self.highWaterMark(statusPath))
            usleep(5_000)
        }
        process.waitUntilExit()
        status = process.terminationStatus
        peakRSS = peak
        // The server's JSON reply is far smaller than a pipe's buffer: it can wait until fwcurl exited.
        stdout = output.fileHandleForReading.readDataToEndOfFile()
    }

    /// VmHWM of a /proc status file in bytes, once the process is fwcurl (before its `exec` a spawned
    /// child shares the test process's memory); 0 before that and once it is gone.
    private static func highWaterMark(_ path: String) -> Int {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n")
        guard lines.contains(where: { $0.hasPrefix("Name:") && $0.hasSuffix("fwcurl") }) else { return 0 }
        let line = lines.first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
