import Foundation

// MARK: - URLSessionDownloadTask

/// A task that writes the response body to a temporary file, in constant memory, and can stop with
/// resume data to continue later (`DownloadResumeData`).
///
/// The file is handed over by `urlSession(_:downloadTask:didFinishDownloadingTo:)` (or the completion
/// handler) and removed when that returns. A download that fails or is cancelled after part of a
/// resumable body arrived keeps its partial file and offers resume data.
open class URLSessionDownloadTask: URLSessionTask, @unchecked Sendable { // state: URLSessionTask.guarded
    /// Cancels the download; `completionHandler` gets resume data when the download can be resumed
    /// (nil otherwise), before the task completes with `URLError.cancelled`.
    open func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        let accepted = guarded.withLock { state -> Bool in
            guard state.lifecycle.publicState != .completed, state.lifecycle.publicState != .canceling else {
                return false
            }
            state.download.resumeDataHandler = completionHandler
            return true
        }
        guard accepted else {
            session.delegateQueue.addOperation { completionHandler(nil) }
            return
        }
        cancel()
    }
}

// MARK: - Download state

/// A download task's file and where it resumes from. Touched by the task's drain (and, for the
/// handler, `cancel(byProducingResumeData:)`), under the task's lock.
struct DownloadState {
    /// The file the body goes to; created (or reopened, when resuming) when the response arrives.
    var file: DownloadFile?
    /// The task was made from resume data: its response continues (206) or replaces (200) `file`.
    var isResuming = false
    /// The body length the response announced, counting the bytes resumed from; -1 when unknown.
    var expectedTotalBytes: Int64 = -1
    /// `cancel(byProducingResumeData:)` is waiting for the resume data.
    var resumeDataHandler: (@Sendable (Data?) -> Void)?
}
