import Foundation
import FWTLS
import Glibc
import Testing
import TestSupport

// fwcurl -F, as curl's: text fields, @FILE parts (streamed, typed by extension unless ;type=, renamed
// by ;filename=), <FILE fields, POST unless -X, the combinations it refuses, and a 64 MiB file sent in
// constant memory (fwcurl's own peak RSS, from wait4, against a run with a one-byte file). The bodies
// are parsed by Python's email.parser (MultipartEchoServer).
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
        let server = try MultipartEchoServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 64 << 20
        try LargeFile.write(path: directory + "/large.bin", size: size)
        try Data([1]).write(to: URL(fileURLWithPath: directory + "/small.bin"))
        let expected = try LargeFile.sha256(path: directory + "/large.bin")

        let small = try MeasuredRun(["-F", "f=@\(directory)/small.bin", server.baseURL + "/stream"], in: directory)
        let large = try MeasuredRun(["-F", "f=@\(directory)/large.bin", server.baseURL + "/stream"], in: directory)
        let growth = large.peakRSS - small.peakRSS
        print("fwcurl -F: peak RSS \(small.peakRSS >> 20) MiB with a 1-byte file, \(large.peakRSS >> 20) MiB "
              + "with a 64 MiB file (growth \(growth >> 20) MiB)")
        #expect(small.status == 0 && large.status == 0)
        let reply = try MultipartEchoServer.reply(large.stdout)
        #expect(reply.parts.first?.length == size)
        #expect(reply.parts.first?.sha256 == expected)
        #expect(growth < 32 << 20, "fwcurl's peak RSS grew by \(growth >> 20) MiB for a 64 MiB upload")
    }
}

/// fwcurl run with stdout into a file and reaped with wait4, for its exit status and peak RSS.
private struct MeasuredRun {
    var status: Int32
    var peakRSS: Int
    var stdout: Data

    init(_ arguments: [String], in directory: String) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("fwcurl").path
        let output = directory + "/stdout-\(UUID().uuidString)"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, binary, &actions, &attributes, &argv, environ)
        guard spawned == 0 else { throw TestSupportError.systemCall("posix_spawn", errno: spawned) }
        var rawStatus: Int32 = 0
        var usage = rusage()
        while wait4(pid, &rawStatus, 0, &usage) < 0 && errno == EINTR {}
        status = (rawStatus & 0x7F) == 0 ? (rawStatus >> 8) & 0xFF : -1
        peakRSS = usage.ru_maxrss * 1024
        stdout = (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data()
    }
}
