import Foundation

// MARK: - Progress
//
// `task.progress`, kept current from the machine's `TransferCounts` (see there).

extension URLSessionTask {
    /// Brings `progress` (when somebody asked for it) up to date.
    func updateProgress() {
        guard let (progress, counts) = update({ machine in
            machine.counts.progress.map { ($0, machine.counts.progressCounts) }
        })
        else { return }
        Self.set(progress, to: counts)
    }

    /// Sets `progress` to `counts` (outside the task's lock: `Progress` has observers).
    static func set(_ progress: Progress, to counts: (completed: Int64, total: Int64)) {
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
