import Foundation

// MARK: - Progress
//
// `task.progress` is made on first use (most tasks never ask, and a `Progress` is not free), then kept
// current by the drain: bytes sent of the expected total for upload tasks, bytes received (as received,
// before content decoding) of the expected total for the others. An unknown total is -1 (indeterminate)
// until the task succeeds, when the total becomes what was transferred.

extension TaskCounts {
    /// (completed, total) for `progress`.
    var progressCounts: (completed: Int64, total: Int64) {
        let (completed, total) = tracksSending ? (sent, expectedToSend) : (received, expectedToReceive)
        return (completed, succeeded && total < 0 ? completed : total)
    }
}

extension URLSessionTask {
    /// Brings `progress` (when somebody asked for it) up to date.
    func updateProgress() {
        guard let (progress, counts) = counts.withLock({ counts in counts.progress.map { ($0, counts.progressCounts) } })
        else { return }
        progress.totalUnitCount = counts.total
        progress.completedUnitCount = counts.completed
    }
}

// MARK: - UploadBody

/// Where an upload's body comes from. Kept by the task so that a redirect that keeps the body (307, 308)
/// and a resend on a new connection can produce it again.
enum UploadBody {
    /// Bytes in memory.
    case data(Data)
    /// A file, streamed from disk in constant memory.
    case file(URL)
    /// The request's `httpBodyStream` for the first send; the delegate's `needNewBodyStream` after that.
    case stream
}
