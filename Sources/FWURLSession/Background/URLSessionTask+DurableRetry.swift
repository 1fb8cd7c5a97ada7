import Foundation
import FWTransport

// MARK: - A durable download's network failures: retry with backoff
//
// A download of a durable session (`DurableSession`) whose hop fails before any response head arrived — the
// connection refused, reset or lost, the request timed out, the host not found — is sent again as a new hop
// (`Hop.Reason.routeRetry`, as a route retry) after a backoff: 1 s, then doubling up to 30 s, at most
// `DurableTaskRecorder.maxRetries` times. Only failures every hop policy let be are retried: with
// `waitsForConnectivity` a failure for want of a route is the connectivity policy's (the task waits for a
// route), without it that failure ends the task. The resource timeout keeps running while the task waits, and a
// cancel ends the wait. A failure after the response head is not retried here: the journal keeps the bytes
// on disk, and the next session with the identifier continues from them.

extension URLSessionTask {
    /// The hop failed with `error` and no policy decided anything: true when the task sends it again later.
    final func retryDurably(after error: URLError) -> Bool {
        guard let download = self as? URLSessionDownloadTask,
              let recorder = download.withDownload({ $0.journal }),
              DurableTaskRecorder.retriedCodes.contains(error.code), !isEnding,
              let request = withTransfer({ $0.hop.response == nil ? $0.hop.request : nil }),
              let delay = recorder.nextRetryDelay() else { return false }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, !self.isEnding else { return }
            self.withTransfer { $0.hop = $0.hop.replacing(with: NextHop(request: request, reason: .routeRetry)) }
            self.send()
        }
        return true
    }
}
