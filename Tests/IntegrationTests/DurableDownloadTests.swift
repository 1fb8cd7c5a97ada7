import Foundation
import FWTLS
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import TestSupport

// Issue 25: downloads that survive the process. A PathProbe child downloads 64 MiB in a background session
// from a throttled loopback server that supports Range and logs its requests; the test SIGKILLs it at about
// half, and a second PathProbe on the same identifier finishes the download. The file must be identical
// (SHA-256) and the server's log must show the second request's Range and a second response that began there.

@Suite(.serialized) struct DurableDownloadTests {
    static let size = 64 << 20

    /// The PathProbe executable next to the test bundle.
    static var probePath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("PathProbe").path
    }

    static func sha256(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { Digest.sha256.hexHash($0) }
    }

    /// Starts `PathProbe durable` and SIGKILLs it once it wrote at least `killAt` bytes (bounded wait).
    static func killMidway(_ arguments: [String], log: String, killAt: Int) throws -> Int {
        let child = try SpawnedProcess.spawn([probePath, "durable"] + arguments, logPath: log)
        var written = 0
        let reached = waitUntil(timeout: 60) {
            written = child.log.split(separator: "\n").compactMap { line in
                line.hasPrefix("progress bytes=") ? Int(line.dropFirst("progress bytes=".count)) : nil
            }.last ?? 0
            return written >= killAt || child.hasExited()
        }
        kill(child.pid, SIGKILL)
        _ = waitUntil(timeout: 10) { child.hasExited() }
        #expect(reached, "the child did not get to \(killAt) bytes: \(child.log)")
        return written
    }

    @Test func aDownloadKilledAtHalfFinishesInANewProcess() throws {
        let server = try PythonHTTPServer.rangeFile(size: Self.size)
        let work = try TemporaryDirectory(prefix: "fw-durable")
        let arguments = ["probe-id", work.file("journal"), "\(server.baseURL)/file.bin", work.file("out.bin")]
        let written = try Self.killMidway(arguments, log: work.file("first.log"), killAt: Self.size / 2)
        #expect(written < Self.size)
        // The journal kept the task and its partial file (the record lags the file by at most the cadence).
        #expect(work.fileNames.contains("journal"))
        try server.setRangeDelay(0)
        let second = try PathProbeRun(["durable"] + arguments)
        #expect(second.fields["error"] == "success")
        #expect(second.fields["reattached"] == "1")
        #expect(second.fields["events"] == "true")
        #expect(second.fields["restarted"] == "false")
        #expect(Self.sha256(work.file("out.bin")) == Self.sha256(server.rangeFilePath))
        let requests = server.rangeRequests.filter { $0.hasPrefix("GET") }
        #expect(requests.count == 2)
        #expect(requests.first?.contains("range=- ") == true)
        // The second request asked for the rest from at most 4 MiB (the journal's cadence) before the point
        // the test saw (the child may have journaled a little more before the kill landed).
        let start = requests.last.flatMap { $0.firstMatch(of: /range=bytes=(\d+)- if-range="v1" status=206/) }
            .flatMap { Int($0.1) } ?? -1
        #expect(start >= written - (5 << 20) && start < Self.size, "\(requests)")
        #expect(server.rangeRequests.contains("sent \(start)-\(Self.size)"))
        // Nothing is left behind once the download was delivered.
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: work.file("journal")))
            .contains { $0.hasSuffix(".record") || $0.hasSuffix(".part") })
    }

    @Test func aChangedValidatorStartsOverFromZeroAndSaysSo() throws {
        let server = try PythonHTTPServer.rangeFile(size: 16 << 20)
        try server.setRangeDelay(0.02)
        let work = try TemporaryDirectory(prefix: "fw-durable")
        let arguments = ["changed-id", work.file("journal"), "\(server.baseURL)/file.bin", work.file("out.bin")]
        _ = try Self.killMidway(arguments, log: work.file("first.log"), killAt: 8 << 20)
        try server.replaceRangeFile(seed: 2, etag: "\"v2\"")
        try server.setRangeDelay(0)
        let second = try PathProbeRun(["durable"] + arguments)
        #expect(second.fields["error"] == "success")
        #expect(second.fields["restarted"] == "true")
        #expect(Self.sha256(work.file("out.bin")) == Self.sha256(server.rangeFilePath))
        let last = server.rangeRequests.last { $0.hasPrefix("GET") } ?? ""
        #expect(last.contains("if-range=\"v1\" status=200"), "\(server.rangeRequests)")
    }

    @Test func aTruncatedRecordIsReportedAndTheDownloadStartsOver() throws {
        let server = try PythonHTTPServer.rangeFile(size: 16 << 20, seed: 7)
        try server.setRangeDelay(0.02)
        let work = try TemporaryDirectory(prefix: "fw-durable")
        let journal = work.file("journal")
        let arguments = ["torn-id", journal, "\(server.baseURL)/file.bin", work.file("out.bin")]
        _ = try Self.killMidway(arguments, log: work.file("first.log"), killAt: 8 << 20)
        // A torn write: the record cut in the middle of its payload.
        let record = try #require(try FileManager.default.contentsOfDirectory(atPath: journal)
            .first { $0.hasSuffix(".record") })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: journal + "/" + record))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: journal + "/" + record))
        try server.setRangeDelay(0)
        let second = try PathProbeRun(["durable"] + arguments)
        // Not trusted: nothing re-attached, the probe's new download fetched the whole file.
        #expect(second.fields["reattached"] == "0")
        #expect(second.fields["error"] == "success")
        #expect(Self.sha256(work.file("out.bin")) == Self.sha256(server.rangeFilePath))
        #expect(server.rangeRequests.last { $0.hasPrefix("GET") }?.contains("range=- ") == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: journal)
        #expect(names.contains(record + ".corrupt"))
        #expect(!names.contains { $0.hasSuffix(".part") })
    }

    @Test func aSecondLiveProcessOnTheIdentifierGetsAClearError() throws {
        let server = try PythonHTTPServer.rangeFile(size: 16 << 20)
        try server.setRangeDelay(0.05)
        let work = try TemporaryDirectory(prefix: "fw-durable")
        let arguments = ["shared-id", work.file("journal"), "\(server.baseURL)/file.bin", work.file("out.bin")]
        let first = try SpawnedProcess.spawn([Self.probePath, "durable"] + arguments, logPath: work.file("first.log"))
        defer { kill(first.pid, SIGKILL); _ = waitUntil(timeout: 10) { first.hasExited() } }
        #expect(waitUntil(timeout: 30) { first.log.contains("progress bytes=") })
        let second = try PathProbeRun(["durable"] + arguments.dropLast() + [work.file("other.bin")])
        #expect(second.fields["error"] == "\(URLError.Code.cannotOpenFile.rawValue)")
        #expect(!first.hasExited())
    }
}
