// URLSessionManagerTaskDelegate: what the manager keeps for one task its factories made (seed 004's
// AFURLSessionManagerTaskDelegate). The manager hands it the task's messages on the operation queue:
//
//   didSendBodyData       → uploadProgress (bytes sent of the expected total), then its block
//   didReceive data       → downloadProgress (bytes received), then its block
//   didCollectBody        → the body, which the task collected (the manager is a
//                           `URLSessionDataCollectingDelegate`: the task collects within the session's
//                           `httpResponseLimits`, as for a completion handler, and over them ends with
//                           `dataLengthExceedsMaximum`); only a task that succeeded hands it over
//   didWriteData/Resume   → downloadProgress (bytes written), then its block
//   didFinishDownloading  → the file is moved to the destination (the move notifications are posted)
//   didFinishCollecting   → the metrics are kept for the did-complete notification
//   didComplete           → the response is serialized on the concurrent processing queue (not for a
//                           failed task), then the completion handler runs on the completion queue inside
//                           the completion group, followed by `networkingTaskDidCompleteNotification` on
//                           the main queue
//
// Linux has no KVO: where AFNetworking observes `fractionCompleted`, the progress blocks are called right
// after the progress changes. The progress objects are cancellable and pausable: cancelling one cancels
// the task, pausing suspends it, resuming resumes it.

import FWLoop
import Foundation

// MARK: - URLSessionManagerTaskDelegate

/// The manager's state for one task: its progress, its body, its download destination and its completion.
/// Sendable: the mutable state is in `state` (a `LockedBox`); everything else is immutable.
final class URLSessionManagerTaskDelegate: Sendable {
    /// How the task completes.
    enum Completion: Sendable {
        /// A data or upload task: the serialized response object.
        case data(URLSessionManager.CompletionHandler?)
        /// A download task: the file where `destination` put it.
        case download(URLSessionManager.DownloadCompletionHandler?, URLSessionManager.DownloadDestination?)
    }

    /// What changes while the task runs.
    struct State {
        /// The body the task collected, handed over once it succeeded (`didCollectBody`).
        var body = Data()
        /// Where the finished download was moved.
        var downloadFileURL: URL?
        /// Why moving the finished download failed.
        var moveError: (any Error)?
        var metrics: URLSessionTaskMetrics?
        /// The error the manager ended the task with (the one `authenticationChallengeHandler` answered with):
        /// the task's error from now on.
        var endingError: (any Error)?
    }

    /// The queue responses are serialized on.
    static let processingQueue = DispatchQueue(label: "FWNetworking.URLSessionManager.processing",
                                               attributes: .concurrent)

    let uploadProgress = Progress(totalUnitCount: -1)
    let downloadProgress = Progress(totalUnitCount: -1)
    private let uploadProgressBlock: URLSessionManager.ProgressHandler?
    private let downloadProgressBlock: URLSessionManager.ProgressHandler?
    private let completion: Completion
    let state = LockedBox(State())

    init(task: URLSessionTask, uploadProgress: URLSessionManager.ProgressHandler?,
         downloadProgress: URLSessionManager.ProgressHandler?, completion: Completion) {
        self.uploadProgressBlock = uploadProgress
        self.downloadProgressBlock = downloadProgress
        self.completion = completion
        for progress in [self.uploadProgress, self.downloadProgress] {
            progress.isCancellable = true
            progress.isPausable = true
        }
        control(task)
    }

    /// Makes cancelling, pausing and resuming the progress objects act on `task`.
    func control(_ task: URLSessionTask) {
        for progress in [uploadProgress, downloadProgress] {
            progress.cancellationHandler = { [weak task] in task?.cancel() }
            progress.pausingHandler = { [weak task] in task?.suspend() }
            progress.resumingHandler = { [weak task] in task?.resume() }
        }
    }

    // MARK: Progress

    /// Body bytes were sent.
    func sent(_ task: URLSessionTask) {
        uploadProgress.totalUnitCount = task.countOfBytesExpectedToSend
        uploadProgress.completedUnitCount = task.countOfBytesSent
        uploadProgressBlock?(uploadProgress)
    }

    /// A piece of the body arrived (the task collects it).
    func received(_ data: Data, from task: URLSessionDataTask) {
        downloadProgress.totalUnitCount = task.countOfBytesExpectedToReceive
        downloadProgress.completedUnitCount = task.countOfBytesReceived
        downloadProgressBlock?(downloadProgress)
    }

    /// A download reached `total` bytes of `expected`.
    func wrote(total: Int64, expected: Int64) {
        downloadProgress.totalUnitCount = expected
        downloadProgress.completedUnitCount = total
        downloadProgressBlock?(downloadProgress)
    }

    /// The task's metrics arrived.
    func collected(_ metrics: URLSessionTaskMetrics) {
        state.withLock { $0.metrics = metrics }
    }

    /// The task handed over the body it collected.
    func collected(body: Data) {
        state.withLock { $0.body = body }
    }

    /// The manager ends the task with `error` (the first such error wins): `authenticationChallengeHandler`
    /// answered with it, or the manager could not answer a session question for the task (no new body stream).
    func end(with error: any Error) {
        state.withLock { $0.endingError = $0.endingError ?? error }
    }

    // MARK: Downloads

    /// Where the task's own destination puts the file at `location`; nil without one.
    func destination(for location: URL, response: URLResponse) -> URL? {
        guard case .download(_, let destination?) = completion else { return nil }
        return destination(location, response)
    }

    /// Moves the finished download at `location` to `destination`, posting the move notification.
    func move(_ location: URL, to destination: URL, of task: URLSessionDownloadTask) {
        do {
            try FileManager.default.moveItem(at: location, to: destination)
            state.withLock { $0.downloadFileURL = destination }
            NotificationCenter.default.post(
                name: URLSessionManager.urlSessionDownloadTaskDidMoveFileSuccessfullyNotification, object: task)
        } catch {
            state.withLock { $0.moveError = error }
            NotificationCenter.default.post(
                name: URLSessionManager.urlSessionDownloadTaskDidFailToMoveFileNotification, object: task,
                userInfo: (error as NSError).userInfo)
        }
    }

    // MARK: Completion

    /// The task finished with `error`: serializes (on success) and delivers on `manager`'s completion queue.
    func complete(_ task: URLSessionTask, error: (any Error)?, manager: URLSessionManager) {
        let taken = state.withLock { state -> State in
            defer { state.body = Data() }
            return state
        }
        let serializer = manager.responseSerializer
        var info: [String: Any] = [URLSessionManager.networkingTaskDidCompleteResponseSerializerKey: serializer]
        if let metrics = taken.metrics { info[URLSessionManager.networkingTaskDidCompleteSessionTaskMetrics] = metrics }
        if let file = taken.downloadFileURL {
            info[URLSessionManager.networkingTaskDidCompleteAssetPathKey] = file
        } else {
            info[URLSessionManager.networkingTaskDidCompleteResponseDataKey] = taken.body
        }
        let response = task.response ?? Self.placeholderResponse(for: task)
        // The manager's own error (the challenge handler's) replaces the cancellation it
        // caused; a failed move is the error of a download that otherwise succeeded.
        if let error = taken.endingError ?? error ?? taken.moveError {
            info[URLSessionManager.networkingTaskDidCompleteErrorKey] = error
            let outcome = Outcome(response: response, object: nil, error: error, userInfo: info)
            manager.onCompletionQueue { self.deliver(outcome, for: task) }
            return
        }
        let handover = Outcome(response: response, object: nil, error: nil, userInfo: info)
        Self.processingQueue.async {
            let outcome = Self.serialize(handover, data: taken.body, file: taken.downloadFileURL,
                                         serializer: serializer, task: task)
            manager.onCompletionQueue { self.deliver(outcome, for: task) }
        }
    }

    /// `outcome` with the response serialized (the download's file URL as its object, as AFNetworking does).
    private static func serialize(_ outcome: Outcome, data: Data, file: URL?,
                                  serializer: any URLResponseSerialization, task: URLSessionTask) -> Outcome {
        var info = outcome.userInfo
        var object: Any?
        var serializationError: (any Error)?
        do {
            object = try serializer.responseObject(for: task.response, data: data)
        } catch {
            serializationError = error
        }
        if let file { object = file }
        if let object { info[URLSessionManager.networkingTaskDidCompleteSerializedResponseKey] = object }
        if let serializationError { info[URLSessionManager.networkingTaskDidCompleteErrorKey] = serializationError }
        return Outcome(response: outcome.response, object: object, error: serializationError, userInfo: info)
    }

    /// Calls the completion handler (completion queue), then queues the did-complete notification on the
    /// main queue (seed 004), so that it follows the handler whatever the completion queue is.
    private func deliver(_ outcome: Outcome, for task: URLSessionTask) {
        switch completion {
        case .data(let handler):
            handler?(outcome.response, outcome.object, outcome.error)
        case .download(let handler, _):
            handler?(outcome.response, outcome.object as? URL, outcome.error)
        }
        DispatchQueue.main.async {
            NotificationCenter.default.post(name: URLSessionManager.networkingTaskDidCompleteNotification,
                                            object: task, userInfo: outcome.userInfo)
        }
    }

    /// What a completion handler gets when no response arrived: a `URLResponse` for the task's URL.
    static func placeholderResponse(for task: URLSessionTask) -> URLResponse {
        let url = task.currentRequest?.url ?? task.originalRequest?.url ?? URL(fileURLWithPath: "/")
        return URLResponse(url: url, mimeType: nil, expectedContentLength: -1, textEncodingName: nil)
    }
}

// MARK: - Outcome

/// A finished task's outcome on its way from the operation queue through the processing queue to the
/// completion queue. `@unchecked Sendable` because the response object and the userInfo are `Any`: each
/// outcome is handed from one queue to the next, never used by two at once.
struct Outcome: @unchecked Sendable { // lets only, handed over between queues (see above)
    let response: URLResponse
    let object: Any?
    let error: (any Error)?
    let userInfo: [String: Any]
}
