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
// the rest (Range from where the journal stopped).

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
}
