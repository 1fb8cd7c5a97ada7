import Foundation
import FWNetworking

// MARK: - BackgroundRun: the delegate of a `--background` run
//
// Moves each finished file to its task's output (the task's description), answers the connection-level
// challenges with fwcurl's `TLSPolicy` (`-k`, `--pinnedpubkey`, the pinning-lab flags; a refusal gives its
// exit code), draws each download's progress meter on a terminal, and counts the completions until the run
// waits for no more.
//
// No lock: the state belongs to the session's serial delegate queue, where every delegate message arrives,
// and `wait(for:on:)` reads and writes it there too (an operation on that queue), as `WebSocketTrace` does.

/// The delegate of a `--background` run (see above).
final class BackgroundRun: NSObject, URLSessionDownloadDelegate,
    @unchecked Sendable { // `state`: the session's serial delegate queue only (see above)
    private struct State {
        var completed = 0
        var expected: Int?
        /// The last failure's exit status, else 0.
        var status: Int32 = 0
        var waiter: CheckedContinuation<Int32, Never>?
        /// Why the policy refused a task's server, by task identifier.
        var rejections: [Int: TLSPolicy.Rejection] = [:]
        /// Each drawing download's meter, by task identifier.
        var meters: [Int: ProgressMeter] = [:]
    }

    private let fail: Bool
    private let verbose: Bool
    /// Draw the progress meters (a terminal, neither `-s` nor `-v`).
    private let meter: Bool
    private let policy: TLSPolicy
    private var state = State() // the delegate queue only

    init(fail: Bool, verbose: Bool, meter: Bool, policy: TLSPolicy) {
        self.fail = fail
        self.verbose = verbose
        self.meter = meter
        self.policy = policy
    }

    /// Waits until `count` tasks of `session` completed; the last failure's exit status, else 0.
    func wait(for count: Int, on session: URLSession) async -> Int32 {
        await withCheckedContinuation { continuation in
            session.delegateQueue.addOperation {
                self.state.expected = count
                guard self.state.completed >= count else {
                    self.state.waiter = continuation
                    return
                }
                continuation.resume(returning: self.state.status)
            }
        }
    }

    // MARK: Challenges

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        let (disposition, credential) = policy.answer(challenge) { finding in
            if case .rejected(let rejection) = finding { state.rejections[task.taskIdentifier] = rejection }
        }
        completionHandler(disposition, credential)
    }

    // MARK: Progress

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        guard meter else { return }
        let id = downloadTask.taskIdentifier
        var drawing = state.meters[id] ?? ProgressMeter(now: Self.now)
        if let text = drawing.update(bytes: totalBytesWritten, total: totalBytesExpectedToWrite, now: Self.now) {
            Terminal.progress(text)
        }
        state.meters[id] = drawing
    }

    /// Draws the final line of `task`'s meter, if it was drawing.
    private func finishMeter(of task: URLSessionTask) {
        guard var drawing = state.meters.removeValue(forKey: task.taskIdentifier) else { return }
        let total = task.countOfBytesExpectedToReceive
        Terminal.progress(drawing.finish(bytes: task.countOfBytesReceived, total: total, now: Self.now))
    }

    // MARK: Outcomes

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let output = downloadTask.taskDescription else { return }
        if fail, let status = (downloadTask.response as? HTTPURLResponse)?.statusCode, status >= 400 {
            Terminal.error("fwcurl: (22) The requested URL returned error: \(status)")
            state.status = ExitCode.httpError
            return
        }
        do {
            if FileManager.default.fileExists(atPath: output) { try FileManager.default.removeItem(atPath: output) }
            try FileManager.default.moveItem(atPath: location.path, toPath: output)
        } catch {
            Terminal.error("fwcurl: (23) cannot write \(output): \(error.localizedDescription)")
            state.status = 23
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        if verbose, metrics.restartedFromZero {
            Terminal.error("* \(task.taskDescription ?? "-"): the server's copy changed; started over from byte 0")
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finishMeter(of: task)
        if let error {
            let urlError = error as? URLError ?? URLError(.unknown)
            var record = TransferRecord(trustMode: policy.trustMode)
            record.trustRejection = state.rejections[task.taskIdentifier]
            let code = [.cannotOpenFile, .cannotCreateFile].contains(urlError.code) ? 23
                : ExitCode.failure(urlError, record: record)
            if let rejection = record.trustRejection {
                Terminal.error("fwcurl: (\(code)) \(rejection.reason)")
            } else {
                Terminal.error("fwcurl: (\(code)) \(urlError.localizedDescription)")
            }
            state.status = code
        }
        state.rejections[task.taskIdentifier] = nil
        state.completed += 1
        guard let expected = state.expected, state.completed >= expected, let waiter = state.waiter else { return }
        state.waiter = nil
        waiter.resume(returning: state.status)
    }

    /// Monotonic seconds for the meters.
    private static var now: Double { ProcessInfo.processInfo.systemUptime }
}
