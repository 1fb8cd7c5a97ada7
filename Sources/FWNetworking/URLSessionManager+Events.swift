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

    /// The task completed: its per-task delegate completes (and is forgotten), then `taskDidComplete`
    /// runs — seed 004's order. The per-task delegate only hands the completion on (to the processing
    /// queue, then the completion queue), so the block, which runs here on the operation queue, and the
    /// completion handler may run in either order, as in AFNetworking; what is fixed is that the
    /// completion was handed on before the block runs.
    func taskCompleted(_ task: URLSessionTask, session: URLSession, error: (any Error)?) {
        let delegate = removeTaskDelegate(for: task)
        delegate?.complete(task, error: error, manager: self)
        blocks.withLock { $0.taskDidComplete }?(session, task, error)
    }

    /// A task needs its body stream again (a 307/308 hop, a resend on a new connection):
    /// `taskNeedNewBodyStream` when set; else a copy of the original request's stream when the stream
    /// conforms to `NSCopying` (seed 004; `MultipartBodyStream` does, a plain `InputStream` does not on
    /// Linux); else nil, and the task fails with `requestBodyStreamExhausted` saying how to fix it.
    func provideNewBodyStream(for task: URLSessionTask, session: URLSession,
                              completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        if let block = blocks.withLock({ $0.taskNeedNewBodyStream }) {
            return completionHandler(block(session, task))
        }
        guard let original = task.originalRequest?.httpBodyStream else { return completionHandler(nil) }
        if let copy = (original as? NSCopying)?.copy(with: nil) as? InputStream {
            return completionHandler(copy)
        }
        let error = Self.managerError(.requestBodyStreamExhausted, for: task, description: "The request's body "
            + "stream must be sent again, but \(type(of: original)) does not conform to NSCopying and no "
            + "taskNeedNewBodyStream block is set.")
        taskDelegate(for: task)?.end(with: error)
        completionHandler(nil)
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
