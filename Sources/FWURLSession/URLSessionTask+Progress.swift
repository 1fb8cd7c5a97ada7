import Foundation

// MARK: - Progress
//
// `task.progress`, kept current from the machine's `TransferCounts` (see there).

extension URLSessionTask {
    /// Brings `progress` (when somebody asked for it) up to date.
    func updateProgress() {
        Self.set(update { $0.counts.progressUpdate })
    }

    /// Sets the progress to its counts (outside the task's lock: `Progress` has observers); nothing when no
    /// progress was made.
    static func set(_ update: ProgressUpdate?) {
        guard let update else { return }
        update.progress.totalUnitCount = update.counts.total
        update.progress.completedUnitCount = update.counts.completed
    }
}

/// A task's `Progress` and the counts it should show (`TransferCounts.progressUpdate`).
struct ProgressUpdate {
    let progress: Progress
    let counts: (completed: Int64, total: Int64)
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
