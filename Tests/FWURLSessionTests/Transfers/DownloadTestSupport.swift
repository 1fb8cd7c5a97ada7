import Foundation
@testable import FWURLSession
import TestSupport

// MARK: - Helpers for download tests

/// A download delegate that records what URLSession tells it, and what the file held when it was handed over.
final class RecordingDownloadDelegate: NSObject, URLSessionDownloadDelegate, URLSessionDataDelegate,
    @unchecked Sendable { // vars: in `log`
    struct Log {
        var messages: [String] = []
        var writes: [(written: Int64, total: Int64, expected: Int64)] = []
        var resumedAt: (offset: Int64, expected: Int64)?
        var fileContents: Data?
        var fileLocation: URL?
        var becameDownload: URLSessionDownloadTask?
        var error: URLError?
        var completed = false
    }

    let log = LockedBox(Log())
    /// What data tasks answer to their response.
    let disposition: URLSession.ResponseDisposition
    /// Called on the first didWriteData (to cancel mid-way, for instance).
    let onFirstWrite: (@Sendable (URLSessionDownloadTask) -> Void)?

    init(disposition: URLSession.ResponseDisposition = .allow,
         onFirstWrite: (@Sendable (URLSessionDownloadTask) -> Void)? = nil) {
        self.disposition = disposition
        self.onFirstWrite = onFirstWrite
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let contents = FileManager.default.contents(atPath: location.path)
        log.withLock {
            $0.messages.append("finished")
            $0.fileContents = contents
            $0.fileLocation = location
        }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        let first = log.withLock { log -> Bool in
            log.writes.append((bytesWritten, totalBytesWritten, totalBytesExpectedToWrite))
            return log.writes.count == 1
        }
        if first { onFirstWrite?(downloadTask) }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
                    expectedTotalBytes: Int64) {
        log.withLock {
            $0.messages.append("resumed")
            $0.resumedAt = (fileOffset, expectedTotalBytes)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        log.withLock { $0.messages.append("response") }
        completionHandler(disposition)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask) {
        log.withLock {
            $0.messages.append("became download")
            $0.becameDownload = downloadTask
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        log.withLock { $0.messages.append("data") }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        log.withLock { $0.messages.append("metrics") }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        log.withLock {
            $0.messages.append("complete")
            $0.error = error as? URLError
            $0.completed = true
        }
    }

    func waitForCompletion(timeout: Double = 10) -> Bool {
        waitUntil(timeout: timeout) { log.withLock { $0.completed } }
    }
}

/// Deterministic bytes that differ at every offset (so a misplaced range shows).
func patternBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
}
