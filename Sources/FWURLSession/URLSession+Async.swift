import Foundation

// MARK: - Async API

extension URLSession {
    /// Loads `request` and returns the body and response. Cancelling the Swift task cancels the load.
    public func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (Data, URLResponse) {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                task.delegate = delegate
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// Loads `url` with a GET and returns the body and response.
    public func data(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws
        -> (Data, URLResponse) {
        try await data(for: URLRequest(url: url), delegate: delegate)
    }
}

/// Carries a task to the cancellation handler, which may run before the task exists.
private final class TaskBox: @unchecked Sendable { // `task` and `cancelled`: under `lock`
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func set(_ task: URLSessionTask) {
        let cancelNow = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionTask? in
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
