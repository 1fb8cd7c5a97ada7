// URLSessionManager+Events: what the delegate methods of the class body do when it is more than a line:
// the per-task delegate first, then the manager's block (seed 004's order).

import Foundation

extension URLSessionManager {
    /// Body bytes were sent: the task's upload progress, then `taskDidSendBodyData` with an unknown total
    /// replaced by the request's `Content-Length` when it has one (as AFNetworking does).
    func taskSentBodyData(_ task: URLSessionTask, session: URLSession, sent: Int64, total: Int64, expected: Int64) {
        taskDelegate(for: task)?.sent(task)
        guard let block = blocks.withLock({ $0.taskDidSendBodyData }) else { return }
        var expected = expected
        if expected < 0,
           let length = task.originalRequest?.value(forHTTPHeaderField: "Content-Length").flatMap({ Int64($0) }) {
            expected = length
        }
        block(session, task, sent, total, expected)
    }

    /// The task completed: its per-task delegate completes (and is forgotten), then `taskDidComplete`.
    func taskCompleted(_ task: URLSessionTask, session: URLSession, error: (any Error)?) {
        removeTaskDelegate(for: task)?.complete(task, error: error, manager: self)
        blocks.withLock { $0.taskDidComplete }?(session, task, error)
    }

    /// A download finished into `location` (removed when this returns): `downloadTaskDidFinishDownloading`
    /// chooses the destination when it returns one, else the task's own destination does.
    func downloadFinished(_ task: URLSessionDownloadTask, session: URLSession, location: URL) {
        let delegate = taskDelegate(for: task)
        if let block = blocks.withLock({ $0.downloadTaskDidFinishDownloading }),
           let destination = block(session, task, location) {
            move(location, to: destination, of: task, delegate: delegate)
            return
        }
        let response = task.response ?? URLSessionManagerTaskDelegate.placeholderResponse(for: task)
        guard let delegate, let destination = delegate.destination(for: location, response: response) else { return }
        delegate.move(location, to: destination, of: task)
    }

    /// Moves a download for the manager's block: through the task's delegate when it has one (which then
    /// reports the final path), else here.
    private func move(_ location: URL, to destination: URL, of task: URLSessionDownloadTask,
                      delegate: URLSessionManagerTaskDelegate?) {
        if let delegate {
            delegate.move(location, to: destination, of: task)
            return
        }
        do {
            try FileManager.default.moveItem(at: location, to: destination)
            NotificationCenter.default.post(name: Self.urlSessionDownloadTaskDidMoveFileSuccessfullyNotification,
                                            object: task)
        } catch {
            NotificationCenter.default.post(name: Self.urlSessionDownloadTaskDidFailToMoveFileNotification,
                                            object: task, userInfo: (error as NSError).userInfo)
        }
    }
}
