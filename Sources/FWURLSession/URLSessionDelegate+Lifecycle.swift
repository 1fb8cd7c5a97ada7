import Foundation

// MARK: - Default implementations of the lifecycle messages
//
// The rule of `URLSessionDelegate.swift`: on a task's own delegate, a default means "not mine" and hands the
// message on to the session's delegate (`DelegateRouter.fallback`); on the session's delegate it does the
// default thing.

extension URLSessionDelegate {
    /// Does nothing.
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {}
}

extension URLSessionTaskDelegate {
    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionTaskDelegate).self)?
            .urlSession(session, didCreateTask: task)
    }

    /// The session delegate's answer when this is the task's own delegate; else `continueLoading`.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willBeginDelayedRequest request: URLRequest,
                           completionHandler: @escaping @Sendable
                               (URLSession.DelayedRequestDisposition, URLRequest?) -> Void) {
        guard let next = DelegateRouter.fallback(from: self, session: session, task: task,
                                                 (any URLSessionTaskDelegate).self) else {
            return completionHandler(.continueLoading, nil)
        }
        next.urlSession(session, task: task, willBeginDelayedRequest: request, completionHandler: completionHandler)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           didReceiveInformationalResponse response: HTTPURLResponse) {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionTaskDelegate).self)?
            .urlSession(session, task: task, didReceiveInformationalResponse: response)
    }
}
