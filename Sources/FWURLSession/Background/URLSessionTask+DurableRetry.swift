import Foundation
import FWTransport

// MARK: - A durable download's network failures: retry with backoff, in the same process
//
// A download of a durable session (`DurableSession`) whose hop fails with a network failure — the connection
// refused, reset or lost, the request timed out, the host not found — is sent again as a new hop
// (`Hop.Reason.routeRetry`) after a backoff: 1 s, then doubling up to 30 s, at most
// `DurableTaskRecorder.maxRetries` failures in a row (body bytes arriving start the count again). The wait
// is a deadline of the session's `TaskDeadlines` (kind `.retry`), so it runs on the session's clock: a test
// on a manual clock moves it by hand. The resource timeout keeps running while the task waits, and a cancel
// ends the wait (the due retry finds the task ending and does nothing).
//
//   before the response   the hop's request goes again as it was
//   in the body           the partial file is synced and journaled, and the next request continues it:
//                         `Range: bytes=N-` + `If-Range: <the record's validator>`; the sink, told the
//                         download is resuming, appends a 206 from N and starts a 200 (a changed validator,
//                         a server that ignores ranges) over from byte 0, which the metrics report
//                         (`restartedFromZero`). Without a validator, for an encoded body, or after a response
//                         other than 200/206, the request goes without `Range` (over from 0).
//
// Only failures every hop policy let be are retried: with `waitsForConnectivity` a failure for want of a
// route is the connectivity policy's (the task waits for a route, then sends its current request: a failure
// in the body has made that the continuing request first); without it that failure ends the task.

extension URLSessionTask {
    /// The hop failed with `error` and the policies decided `decision` (nil: nothing): true when the task
    /// sends a request again after a backoff (then nothing else is to be done with the failure).
    final func retryDurably(after error: URLError, decision: HopDecision?) -> Bool {
        guard let download = self as? URLSessionDownloadTask, !isEnding,
              let (recorder, file) = download.withDownload({ state in state.journal.map { ($0, state.file) } })
        else { return false }
        let waitsForRoute = if case .waitForRoute? = decision { true } else { false }
        let retried = decision == nil && DurableTaskRecorder.retriedCodes.contains(error.code)
        guard retried || waitsForRoute,
              let (request, response) = withTransfer({ transfer in
                  transfer.hop.request.map { ($0, transfer.hop.response) }
              }) else { return false }
        var next = request
        if let response {
            guard let file, let continuing = continuingRequest(request, response, file, recorder) else { return false }
            next = continuing
            if waitsForRoute { withTransfer { $0.hop.request = continuing } } // what the wait sends again
        }
        guard retried, let delay = recorder.scheduleRetry(next) else { return false }
        session.taskDeadlines.add(taskIdentifier, .retry, at: session.clock.deadline(after: delay))
        return true
    }

    /// The retry's wait is over (the session's deadline timer, on its loop): the kept request goes as a new
    /// hop, sent off the loop thread (its policy walk may call a URL protocol's class methods).
    final func durableRetryDue() {
        guard let download = self as? URLSessionDownloadTask,
              let recorder = download.withDownload({ $0.journal }),
              let request = recorder.takeRetry() else { return }
        DispatchQueue.global().async { [self] in
            guard !isEnding else { return }
            withTransfer { $0.hop = $0.hop.replacing(with: NextHop(request: request, reason: .routeRetry)) }
            send()
        }
    }

    /// The request that continues a download whose body stopped at `file.length` (the file synced and
    /// journaled first; nil when that fails, and the task fails with the network's error); the sink is told
    /// that the download resumes.
    private func continuingRequest(_ request: URLRequest, _ response: HTTPURLResponse, _ file: DownloadFile,
                                   _ recorder: DurableTaskRecorder) -> URLRequest? {
        do throws(URLError) {
            try recorder.kept(file, task: self)
        } catch {
            return nil
        }
        var next = request
        let encoded = read(\.machine.counts.bodyIsEncoded)
        if let validator = recorder.validator, [200, 206].contains(response.statusCode), !encoded,
           (request.httpMethod ?? "GET") == "GET", file.length > 0 {
            next.setValue("bytes=\(file.length)-", forHTTPHeaderField: "Range")
            next.setValue(validator, forHTTPHeaderField: "If-Range")
        } else {
            next.setValue(nil, forHTTPHeaderField: "Range")
            next.setValue(nil, forHTTPHeaderField: "If-Range")
        }
        withDownload { $0.isResuming = true }
        return next
    }
}
