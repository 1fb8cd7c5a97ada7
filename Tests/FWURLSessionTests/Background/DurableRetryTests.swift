import Foundation
import FWLoop
import FWTLS
@testable import FWURLSession
import Testing
import TestSupport

/// A durable download whose connection is reset in the middle of its body is retried in the same process:
/// the next request carries `Range` + `If-Range` and the 206 continues the partial file (byte-identical by
/// SHA-256); a changed validator starts it over from byte 0 (the metrics say so). The backoff runs on the
/// session's clock: on a manual clock the retry goes when the clock reaches 1 s, never a nanosecond before.
@Suite struct DurableRetryTests {
    /// What a download's delegate heard: the file's SHA-256, the error, the resumed offset and the metrics.
    final class Outcome: NSObject, URLSessionDownloadDelegate, @unchecked Sendable { // `log` is a LockedBox
        struct Log {
            var sha256: String?
            var error: URLError?
            var resumedAt: Int64?
            var restartedFromZero: Bool?
            var completed = false
        }

        let log = LockedBox(Log())

        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                        didFinishDownloadingTo location: URL) {
            let digest = FileManager.default.contents(atPath: location.path).map { Digest.sha256.hexHash($0) }
            log.withLock { $0.sha256 = digest }
        }

        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                        didResumeAtOffset fileOffset: Int64,
                        expectedTotalBytes: Int64) {
            log.withLock { $0.resumedAt = fileOffset }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask,
                        didFinishCollecting metrics: URLSessionTaskMetrics) {
            log.withLock { $0.restartedFromZero = metrics.restartedFromZero }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            log.withLock {
                $0.error = error as? URLError
                $0.completed = true
            }
        }

        func waitForCompletion(timeout: Double) -> Bool {
            waitUntil(timeout: timeout) { self.log.withLock { $0.completed } }
        }
    }

    static func servedDigest(_ server: PythonHTTPServer) throws -> String {
        Digest.sha256.hexHash(try Data(contentsOf: URL(fileURLWithPath: server.rangeFilePath)))
    }

    /// The offset of the server's logged ranged request (`range=bytes=N-`) and the line; nil without one.
    static func rangedRequest(_ server: PythonHTTPServer) -> (offset: Int64, line: String)? {
        for line in server.rangeRequests {
            guard let start = line.range(of: "range=bytes="),
                  let end = line.range(of: "- ", range: start.upperBound..<line.endIndex),
                  let offset = Int64(line[start.upperBound..<end.lowerBound]) else { continue }
            return (offset, line)
        }
        return nil
    }

    @Test func aResetInTheMiddleOfTheBodyIsContinuedWithARangeInTheSameProcess() throws {
        let size = 8 << 20
        let server = try PythonHTTPServer.rangeFile(size: size, seed: 25)
        try server.resetNextResponse(atByte: size / 2)
        let work = try TemporaryDirectory(prefix: "fw-durable-retry")
        let outcome = Outcome()
        let session = URLSession(configuration: DurableSessionTests.configuration(work.path), delegate: outcome,
                                 delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: URL(string: "\(server.baseURL)/file.bin")!).resume()
        #expect(outcome.waitForCompletion(timeout: 60))

        let log = outcome.log.withLock { $0 }
        #expect(log.error == nil)
        #expect(log.sha256 == (try Self.servedDigest(server)))
        #expect(log.restartedFromZero == false)
        // The second request asked for what the first did not bring (what the client had read before the
        // reset: at most the half the server sent), and only that was sent.
        let requests = server.rangeRequests
        #expect(requests.contains("reset at \(size / 2)"))
        let ranged = try #require(Self.rangedRequest(server))
        #expect(ranged.offset > 0 && ranged.offset <= Int64(size / 2))
        #expect(ranged.line == "GET /file.bin range=bytes=\(ranged.offset)- if-range=\"v1\" status=206")
        #expect(requests.contains("sent \(ranged.offset)-\(size)"))
        #expect(log.resumedAt == ranged.offset)
        #expect(requests.filter { $0.hasPrefix("GET") }.count == 2)
        // The record went with the finished task; the partial file was handed over and removed.
        #expect(waitUntil(timeout: 10) { work.fileNames.allSatisfy { $0 == "lock" } })
    }

    /// A durable session on a manual clock, torn down in order.
    final class ManualDurableSession: Sendable {
        let loops: ManualEventLoopGroup
        let session: URLSession

        init(_ directory: String, delegate: any URLSessionDelegate) throws {
            loops = try ManualEventLoopGroup()
            session = URLSession(configuration: DurableSessionTests.configuration(directory), delegate: delegate,
                                 delegateQueue: nil, engine: SessionEngine(group: loops.group))
        }

        deinit {
            session.invalidateAndCancel()
            loops.shutdown()
        }

        /// Waits (wall time, polling) until the earliest timer is `deadline`: the retry was scheduled.
        func waitForTimer(at deadline: Deadline) -> Bool {
            waitUntil(timeout: 10) { (try? self.loops.nextTimerDeadline()) == deadline }
        }
    }

    @Test(arguments: [false, true])
    func theBackoffRunsOnTheSessionClock(validatorChanges: Bool) throws {
        let size = 1 << 20
        let server = try PythonHTTPServer.rangeFile(size: size, seed: 26)
        try server.resetNextResponse(atByte: size / 2)
        let work = try TemporaryDirectory(prefix: "fw-durable-retry")
        let outcome = Outcome()
        let manual = try ManualDurableSession(work.path, delegate: outcome)
        let start = manual.loops.now()
        manual.session.downloadTask(with: URL(string: "\(server.baseURL)/file.bin")!).resume()

        // The reset was handled: the retry's 1 s deadline is the earliest timer.
        let retryAt = Deadline(uptimeNanoseconds: start.uptimeNanoseconds + 1_000_000_000)
        #expect(manual.waitForTimer(at: retryAt))
        if validatorChanges { try server.replaceRangeFile(seed: 27, etag: "\"v2\"") }
        try manual.loops.advanceTime(by: .seconds(1) - .nanoseconds(1))
        #expect(server.rangeRequests.filter { $0.hasPrefix("GET") }.count == 1)
        try manual.loops.advanceTime(by: .nanoseconds(1))
        #expect(outcome.waitForCompletion(timeout: 60))

        let log = outcome.log.withLock { $0 }
        #expect(log.error == nil)
        #expect(log.sha256 == (try Self.servedDigest(server)))
        #expect(log.restartedFromZero == validatorChanges)
        let ranged = try #require(Self.rangedRequest(server))
        #expect(ranged.offset > 0 && ranged.offset <= Int64(size / 2))
        #expect(ranged.line.hasSuffix("if-range=\"v1\" status=\(validatorChanges ? 200 : 206)"))
    }
}
