import Foundation

// MARK: - URLSessionDownloadTask

/// A task that writes the response body to a temporary file, in constant memory, and can stop with
/// resume data to continue later (`DownloadResumeData`).
///
/// The file is handed over by `urlSession(_:downloadTask:didFinishDownloadingTo:)` (or the completion
/// handler) and removed when that returns. A download that fails or is cancelled after part of a
/// resumable body arrived keeps its partial file and offers resume data.
open class URLSessionDownloadTask: URLSessionTask, @unchecked Sendable { // state: URLSessionTask's boxes
    /// A download of `request`; `completion`: the handler it was made with (nil: the delegate hears it).
    init(session: URLSession, identifier: Int, request: URLRequest, completion: DownloadSink.Completion?) {
        super.init(session: session, identifier: identifier, request: request, sink: DownloadSink.shared,
                   sinkState: .download(completion))
    }

    /// Cancels the download; `completionHandler` gets resume data when the download can be resumed
    /// (nil otherwise), before the task completes with `URLError.cancelled`.
    open func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        guard awaitResumeData(completionHandler) else {
            session.delegateQueue.addOperation { completionHandler(nil) }
            return
        }
        cancel()
    }
}

extension URLSessionDownloadTask {
    /// Keeps `handler` for the resume data of a failure still to come; false when the outcome is settled.
    private func awaitResumeData(_ handler: @escaping @Sendable (Data?) -> Void) -> Bool {
        withDownload { state in
            guard !state.isSettled else { return false }
            state.resumeDataHandler = handler
            return true
        }
    }
}
