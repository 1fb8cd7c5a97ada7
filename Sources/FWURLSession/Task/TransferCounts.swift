import Foundation

// MARK: - TransferCounts
//
// A task's byte counts (the public `countOf…` properties) and the `Progress` made from them, kept in the
// task's machine. `progress` is made on first use (most tasks never ask, and a `Progress` is not free), then
// kept current by the drain: bytes sent of the expected total for upload tasks, bytes received (as received,
// before content decoding) of the expected total for the others. An unknown total is -1 (indeterminate)
// until the task succeeds, when the total becomes what was transferred.

struct TransferCounts {
    var sent: Int64 = 0
    var received: Int64 = 0
    var expectedToSend: Int64 = 0
    var expectedToReceive: Int64 = -1
    /// How much of the current request's body the delegate has heard was sent.
    var reportedBodyBytesSent: Int64 = 0
    /// The response body is content-encoded: received bytes are counted before decoding.
    var bodyIsEncoded = false
    /// Bytes of an encoded body after decoding (checked against `HTTPLimits.maxDecompressionRatio`).
    var decoded: Int64 = 0
    /// `progress` counts bytes sent (upload tasks) rather than received.
    var tracksSending = false
    /// The task completed successfully (an unknown total then settles to what was transferred).
    var succeeded = false
    /// `progress`, made on first use.
    var progress: Progress?

    /// (completed, total) for `progress`.
    var progressCounts: (completed: Int64, total: Int64) {
        let (completed, total) = tracksSending ? (sent, expectedToSend) : (received, expectedToReceive)
        return (completed, succeeded && total < 0 ? completed : total)
    }

    /// `progress` and what it should show, to set after the lock (`URLSessionTask.set(_:)`); nil while nobody
    /// asked for it. Read in the same lock as the change it follows.
    var progressUpdate: ProgressUpdate? {
        progress.map { ProgressUpdate(progress: $0, counts: progressCounts) }
    }

    /// The transport reported `total` body bytes of the current request sent: the bytes the delegate has not
    /// heard of yet (0 when none), with the expected total.
    mutating func bodyBytesSent(_ total: Int64) -> (sent: Int64, expected: Int64) {
        let sent = total - reportedBodyBytesSent
        reportedBodyBytesSent = total
        self.sent = total
        return (sent, expectedToSend)
    }

    /// `count` body bytes arrived for the sink: counted as received unless the body is encoded (the encoded
    /// bytes were counted as they came); for an encoded body, the decoded and received totals to check.
    mutating func bodyArrived(_ count: Int) -> (decoded: Int64, received: Int64)? {
        guard bodyIsEncoded else {
            received += Int64(count)
            return nil
        }
        decoded += Int64(count)
        return (decoded, received)
    }
}
