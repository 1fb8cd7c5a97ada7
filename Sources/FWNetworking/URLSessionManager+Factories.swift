// URLSessionManager+Factories: the task factories of the seeds (each makes a task on `session`, gives it a
// per-task delegate, and returns it suspended: call `resume()`), the per-task delegates' registry, the
// tasks' progress, and the user info kept for a task.
//
// Per-task delegates are kept by task identity (not `taskIdentifier`: a reset session numbers its tasks
// from 1 again while the old one may still finish its own) until the task completes; a data task that
// becomes a download task hands its delegate on.

import Foundation

// MARK: - Data and upload tasks

extension URLSessionManager {
    /// A data task for `request`. The progress blocks run on the operation queue; `completionHandler` gets
    /// the response, the object `responseSerializer` made of the body, and the error, on the completion queue.
    public func dataTask(request: URLRequest, uploadProgress: ProgressHandler? = nil,
                         downloadProgress: ProgressHandler? = nil,
                         completionHandler: CompletionHandler? = nil) -> URLSessionDataTask {
        let task = session.dataTask(with: request)
        addTaskDelegate(for: task, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                        completion: .data(completionHandler))
        return task
    }

    /// An upload task that streams the file at `fileURL` as the body of `request`.
    public func uploadTask(request: URLRequest, fromFile fileURL: URL, progress: ProgressHandler? = nil,
                           completionHandler: CompletionHandler? = nil) -> URLSessionUploadTask {
        let task = session.uploadTask(with: request, fromFile: fileURL)
        addTaskDelegate(for: task, uploadProgress: progress, downloadProgress: nil,
                        completion: .data(completionHandler))
        return task
    }

    /// An upload task that sends `bodyData` (nil: an empty body) as the body of `request`.
    public func uploadTask(request: URLRequest, fromData bodyData: Data?, progress: ProgressHandler? = nil,
                           completionHandler: CompletionHandler? = nil) -> URLSessionUploadTask {
        let task = session.uploadTask(with: request, from: bodyData ?? Data())
        addTaskDelegate(for: task, uploadProgress: progress, downloadProgress: nil,
                        completion: .data(completionHandler))
        return task
    }

    /// An upload task whose body is the request's `httpBodyStream`; a resend asks
    /// `taskNeedNewBodyStream` for a new stream.
    public func uploadTask(streamedRequest: URLRequest, progress: ProgressHandler? = nil,
                           completionHandler: CompletionHandler? = nil) -> URLSessionUploadTask {
        let task = session.uploadTask(withStreamedRequest: streamedRequest)
        addTaskDelegate(for: task, uploadProgress: progress, downloadProgress: nil,
                        completion: .data(completionHandler))
        return task
    }

    // MARK: Download tasks

    /// A download task for `request`. `destination` gets the temporary file and the response and returns
    /// where to move the file; `completionHandler` gets the response, that final path, and the error. When
    /// the move fails, `urlSessionDownloadTaskDidFailToMoveFileNotification` is posted and the completion
    /// handler gets the file manager's error (AFNetworking reports the destination as if the move had
    /// worked).
    public func downloadTask(request: URLRequest, progress: ProgressHandler? = nil,
                             destination: DownloadDestination? = nil,
                             completionHandler: DownloadCompletionHandler? = nil) -> URLSessionDownloadTask {
        let task = session.downloadTask(with: request)
        addTaskDelegate(for: task, uploadProgress: nil, downloadProgress: progress,
                        completion: .download(completionHandler, destination))
        return task
    }

    /// A download task that continues the download `resumeData` describes (see `downloadTask(request:...)`).
    public func downloadTask(resumeData: Data, progress: ProgressHandler? = nil,
                             destination: DownloadDestination? = nil,
                             completionHandler: DownloadCompletionHandler? = nil) -> URLSessionDownloadTask {
        let task = session.downloadTask(withResumeData: resumeData)
        addTaskDelegate(for: task, uploadProgress: nil, downloadProgress: progress,
                        completion: .download(completionHandler, destination))
        return task
    }

    // MARK: Progress and user info

    /// The upload progress of `task`, for a task made by a factory that has not completed; else nil.
    public func uploadProgress(for task: URLSessionTask) -> Progress? {
        taskDelegate(for: task)?.uploadProgress
    }

    /// The download progress of `task`, for a task made by a factory that has not completed; else nil.
    public func downloadProgress(for task: URLSessionTask) -> Progress? {
        taskDelegate(for: task)?.downloadProgress
    }

    /// Keeps `userInfo` for `task` (nil removes it), for as long as the task lives.
    public func setUserInfo(_ userInfo: [AnyHashable: Any]?, for task: URLSessionTask) {
        TaskUserInfo.shared.set(userInfo, for: task)
    }

    /// The user info kept for `task`.
    public func userInfo(for task: URLSessionTask) -> [AnyHashable: Any]? {
        TaskUserInfo.shared.value(for: task)
    }

    // MARK: The per-task delegates

    /// Gives `task` its per-task delegate; on an invalidated session (see `failAtOnce`) completes it instead.
    private func addTaskDelegate(for task: URLSessionTask, uploadProgress: ProgressHandler?,
                                 downloadProgress: ProgressHandler?,
                                 completion: URLSessionManagerTaskDelegate.Completion) {
        let delegate = URLSessionManagerTaskDelegate(task: task, uploadProgress: uploadProgress,
                                                     downloadProgress: downloadProgress, completion: completion)
        guard !sessionIsInvalidated else { return failAtOnce(task, delegate: delegate) }
        taskDelegates.withLock { $0[ObjectIdentifier(task)] = delegate }
    }

    /// `task` was made on the managed session after it was invalidated and kept, so it can never run: it is
    /// cancelled (which also lets a session still finishing its tasks become invalid), and its completion
    /// handler gets `invalidatedSessionError` at once, on the completion queue, followed by the
    /// did-complete notification, as for any failed task.
    private func failAtOnce(_ task: URLSessionTask, delegate: URLSessionManagerTaskDelegate) {
        task.cancel()
        delegate.complete(task, error: Self.invalidatedSessionError(for: task), manager: self)
    }

    /// The error a factory's task ends with when the session was invalidated: `URLError.unknown` (there is
    /// no closer code; URLSession raises an exception instead) with a description saying so and the URL.
    static func invalidatedSessionError(for task: URLSessionTask) -> URLError {
        managerError(.unknown, for: task, description: "The session manager's session was invalidated and not "
            + "reset, so it runs no new task: call invalidateSessionCancelingTasks(_:resetSession: true) to "
            + "keep making tasks.")
    }

    /// A `URLError` the manager ends `task` with: `description`, and the task's URL as the failing URL.
    static func managerError(_ code: URLError.Code, for task: URLSessionTask, description: String) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url = task.originalRequest?.url { info[NSURLErrorFailingURLErrorKey] = url }
        return URLError(code, userInfo: info)
    }

    /// The per-task delegate of `task`, while it runs.
    func taskDelegate(for task: URLSessionTask) -> URLSessionManagerTaskDelegate? {
        taskDelegates.withLock { $0[ObjectIdentifier(task)] }
    }

    /// Removes and returns the per-task delegate of `task`.
    func removeTaskDelegate(for task: URLSessionTask) -> URLSessionManagerTaskDelegate? {
        taskDelegates.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
    }

    /// A data task became `downloadTask`: its per-task delegate goes with it.
    func moveTaskDelegate(from dataTask: URLSessionDataTask, to downloadTask: URLSessionDownloadTask) {
        guard let delegate = taskDelegates.withLock({ delegates -> URLSessionManagerTaskDelegate? in
            guard let delegate = delegates.removeValue(forKey: ObjectIdentifier(dataTask)) else { return nil }
            delegates[ObjectIdentifier(downloadTask)] = delegate
            return delegate
        }) else { return }
        delegate.control(downloadTask)
    }
}
