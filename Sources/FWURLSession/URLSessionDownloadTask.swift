import Foundation

// MARK: - URLSessionDownloadTask

/// A task that writes the response body to a temporary file, in constant memory, and can stop with
/// resume data to continue later (`DownloadResumeData`).
///
/// The file is handed over by `urlSession(_:downloadTask:didFinishDownloadingTo:)` (or the completion
/// handler) and removed when that returns. A download that fails or is cancelled after part of a
/// resumable body arrived keeps its partial file and offers resume data.
open class URLSessionDownloadTask: URLSessionTask, @unchecked Sendable { // state: URLSessionTask's boxes
    /// Where the body goes (also the task's `sink`).
    let downloadSink: DownloadSink

    init(session: URLSession, identifier: Int, request: URLRequest, downloadSink: DownloadSink) {
        self.downloadSink = downloadSink
        super.init(session: session, identifier: identifier, request: request, sink: downloadSink)
    }

    /// Cancels the download; `completionHandler` gets resume data when the download can be resumed
    /// (nil otherwise), before the task completes with `URLError.cancelled`.
    open func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        guard downloadSink.awaitResumeData(completionHandler) else {
            session.delegateQueue.addOperation { completionHandler(nil) }
            return
        }
        cancel()
    }
}
