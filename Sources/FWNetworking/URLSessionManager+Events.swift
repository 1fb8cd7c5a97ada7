// URLSessionManager+Events: what the delegate methods of the class body do when it is more than a line:
// the per-task delegate first, then the manager's block (seed 004's order).

import Foundation

extension URLSessionManager {
    /// Body bytes were sent: the task's upload progress, then `taskDidSendBodyData`. (AFNetworking replaces
    /// an unknown expected total by the request's `Content-Length`; FWURLSession already reports that
    /// length as the expected total, so the block gets the session's numbers.)
    func taskSentBodyData(_ task: URLSessionTask, session: URLSession, sent: Int64, total: Int64, expected: Int64) {
        taskDelegate(for: task)?.sent(task)
        blocks.withLock { $0.taskDidSendBodyData }?(session, task, sent, total, expected)
    }

    /// The task completed: `taskDidComplete`, then its per-task delegate completes (and is forgotten). The
    /// block runs first so that it always precedes the completion handler (AFNetworking calls it just
    /// after handing the completion to another queue, so the two may run in either order).
    func taskCompleted(_ task: URLSessionTask, session: URLSession, error: (any Error)?) {
        let delegate = removeTaskDelegate(for: task)
        blocks.withLock { $0.taskDidComplete }?(session, task, error)
        delegate?.complete(task, error: error, manager: self)
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
