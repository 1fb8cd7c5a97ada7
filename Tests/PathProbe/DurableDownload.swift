// The durable (background) session scenario of issue 25, run in a process the test may SIGKILL.

import FWNetworking
import Foundation
import TestSupport

// MARK: - DurableDownload

/// `PathProbe durable ID DIRECTORY URL OUTPUT`: a session on `URLSessionConfiguration.background(withIdentifier:
/// ID)` journaling under DIRECTORY. Tasks the journal gives back are listed (`reattached id=N description=D`);
/// without any, one download of URL (description "probe") starts. Prints `progress bytes=N` after each MiB
/// written, moves the finished file to OUTPUT, and ends with `result error=CODE|success restarted=BOOL
/// reattached=N events=BOOL` once every task completed (and, for re-attached tasks, the session said its
/// events were delivered).
final class DurableDownload: NSObject, URLSessionDownloadDelegate, @unchecked Sendable { // state: `state`
    struct State {
        var error: URLError?
        var restarted = false
        var completed = 0
        var eventsFinished = false
        var lastMiB: Int64 = 0
    }

    let output: URL
    let state = LockedBox(State())
    let done = DispatchSemaphore(value: 0)

    init(output: URL) {
        self.output = output
    }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func run(identifier: String, directory: String, url: URL, output: String) -> Never {
        let probe = DurableDownload(output: URL(fileURLWithPath: output))
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        configuration.backgroundSessionDirectory = URL(fileURLWithPath: directory)
        let session = URLSession(configuration: configuration, delegate: probe, delegateQueue: nil)
        let reattached = session.currentTasks
        for task in reattached {
            line("reattached id=\(task.taskIdentifier) description=\(task.taskDescription ?? "-")")
        }
        if reattached.isEmpty {
            let task = session.downloadTask(with: url)
            task.taskDescription = "probe"
            task.resume()
        }
        let expected = max(1, reattached.count)
        var finished = false
        for _ in 0..<expected {
            finished = probe.done.wait(timeout: .now() + 120) == .success
        }
        if finished, !reattached.isEmpty {
            _ = waitUntil(timeout: 10) { probe.state.withLock { $0.eventsFinished } }
        }
        let state = probe.state.withLock { $0 }
        report([("error", finished ? describe(state.error) : "timeout"), ("restarted", "\(state.restarted)"),
                ("reattached", "\(reattached.count)"), ("events", "\(state.eventsFinished)")])
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        let mib = totalBytesWritten >> 20
        let due = state.withLock { state -> Bool in
            defer { state.lastMiB = mib }
            return mib > state.lastMiB
        }
        if due { Self.line("progress bytes=\(totalBytesWritten)") }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        try? FileManager.default.removeItem(at: output)
        do {
            try FileManager.default.moveItem(at: location, to: output)
        } catch {
            state.withLock { $0.error = URLError(.cannotMoveFile) }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        if metrics.restartedFromZero { state.withLock { $0.restarted = true } }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { state in
            if let error { state.error = error as? URLError ?? URLError(.unknown) }
            state.completed += 1
        }
        if let error { Self.line("failed \(error.localizedDescription)") }
        done.signal()
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        state.withLock { $0.eventsFinished = true }
    }
}
