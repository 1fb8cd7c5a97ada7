import Foundation

// MARK: - URLSessionDownloadDelegate

/// Events of download tasks. Methods are called on the session's `delegateQueue`, in order per task.
public protocol URLSessionDownloadDelegate: URLSessionTaskDelegate {
    /// The download finished into the file at `location`. The file is removed when this method returns:
    /// move or open it before returning.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                    didFinishDownloadingTo location: URL)
    /// `bytesWritten` more bytes reached the file: `totalBytesWritten` so far (a resumed download counts
    /// the bytes it resumed from), of `totalBytesExpectedToWrite` (-1 when unknown).
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)
    /// A download created from resume data continues at `fileOffset` (0 when the server sent the whole
    /// resource again) of `expectedTotalBytes` (-1 when unknown).
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
                    expectedTotalBytes: Int64)
}

extension URLSessionDownloadDelegate {
    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                           didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
                           totalBytesExpectedToWrite: Int64) {
        downloadFallback(session, downloadTask)?.urlSession(
            session, downloadTask: downloadTask, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten,
            totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                           didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        downloadFallback(session, downloadTask)?.urlSession(
            session, downloadTask: downloadTask, didResumeAtOffset: fileOffset, expectedTotalBytes: expectedTotalBytes)
    }

    private func downloadFallback(_ session: URLSession, _ task: URLSessionDownloadTask)
        -> (any URLSessionDownloadDelegate)? {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionDownloadDelegate).self)
    }
}
