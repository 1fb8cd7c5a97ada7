import Foundation
import FWTransport

// MARK: - Async API
//
// Each call makes a task with a completion handler, resumes it, and suspends until the handler runs.
// Cancelling the Swift task cancels the URLSession task (the handler then resumes with `cancelled`). The
// delegate given to a call is the task's own delegate from its creation on (it hears `didCreateTask`); for
// `data` and `upload` it also hears the data messages (`TaskDelegateReportingSink`).

extension URLSession {
    /// Loads `request` and returns the body and response.
    public func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (Data, URLResponse) {
        try await run(delegate: delegate) { handler in
            register {
                URLSessionDataTask(session: self, identifier: $0, request: request,
                                   sink: TaskDelegateReportingSink.shared, sinkState: .data(Self.resuming(handler)))
            }
        }
    }

    /// Loads `url` with a GET and returns the body and response.
    public func data(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (Data, URLResponse) {
        try await data(for: URLRequest(url: url), delegate: delegate)
    }

    /// Sends `bodyData` as the body of `request`; returns the response body and response.
    public func upload(for request: URLRequest, from bodyData: Data,
                       delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await run(delegate: delegate) { handler in
            makeUploadTask(request, body: .data(bodyData), sink: TaskDelegateReportingSink.shared,
                           completion: Self.resuming(handler))
        }
    }

    /// Streams the file at `fileURL` as the body of `request`; returns the response body and response.
    public func upload(for request: URLRequest, fromFile fileURL: URL,
                       delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await run(delegate: delegate) { handler in
            makeUploadTask(request, body: .file(fileURL), sink: TaskDelegateReportingSink.shared,
                           completion: Self.resuming(handler))
        }
    }

    /// Downloads `request`'s response body to a file the caller now owns (move or delete it).
    public func download(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (URL, URLResponse) {
        try await run(delegate: delegate) { handler in
            downloadTask(with: request) { location, response, error in
                Self.keepDownload(location, response, error, handler)
            }
        }
    }

    /// Downloads `url` to a file the caller now owns.
    public func download(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (URL, URLResponse) {
        try await download(for: URLRequest(url: url), delegate: delegate)
    }

    /// Continues the download `resumeData` describes, to a file the caller now owns.
    public func download(resumeFrom resumeData: Data, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (URL, URLResponse) {
        try await run(delegate: delegate) { handler in
            downloadTask(withResumeData: resumeData) { location, response, error in
                Self.keepDownload(location, response, error, handler)
            }
        }
    }

    /// The completion handler's file is removed when it returns: move it where the caller owns it.
    private static func keepDownload(_ location: URL?, _ response: URLResponse?, _ error: (any Error)?,
                                     _ handler: @Sendable (URL, URLResponse?, (any Error)?) -> Void) {
        guard let location, error == nil else {
            handler(URL(fileURLWithPath: "/"), response, error ?? URLError(.cannotCreateFile))
            return
        }
        let kept = location.deletingLastPathComponent()
            .appendingPathComponent("FWNetworking-Kept-\(UUID().uuidString).tmp")
        do {
            try FileManager.default.moveItem(at: location, to: kept)
            handler(kept, response, nil)
        } catch {
            handler(location, response, URLError(.cannotMoveFile, url: response?.url,
                                                 description: "cannot keep the downloaded file: \(error)"))
        }
    }

    /// A collecting task's completion that resumes the call through `handler` (a missing body is empty).
    private static func resuming(_ handler: @escaping @Sendable (Data, URLResponse?, (any Error)?) -> Void)
        -> CollectingSink.Completion {
        { data, response, error in handler(data ?? Data(), response, error) }
    }

    /// Makes a task through `make` (whose completion calls the given handler), resumes it, and waits.
    private func run<Value: Sendable>(
        delegate: (any URLSessionTaskDelegate)?,
        _ make: (@escaping @Sendable (Value, URLResponse?, (any Error)?) -> Void) -> URLSessionTask
    ) async throws -> (Value, URLResponse) {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let handler: @Sendable (Value, URLResponse?, (any Error)?) -> Void = { value, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (value, response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                // The delegate is the task's own from its creation on (it hears `didCreateTask`).
                let task = Self.$delegateAtCreation.withValue(delegate) { make(handler) }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Carries a task to the cancellation handler, which may run before the task exists.
final class TaskBox: Sendable {
    private struct State {
        var task: URLSessionTask?
        var cancelled = false
    }

    private let state = LockedBox(State())

    func set(_ task: URLSessionTask) {
        let cancelNow = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> URLSessionTask? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
