import Foundation

// MARK: - URLSessionWebSocketDelegate

/// Events of WebSocket tasks. Methods are called on the session's `delegateQueue`, in order per task.
public protocol URLSessionWebSocketDelegate: URLSessionTaskDelegate {
    /// The handshake succeeded: the connection is open, speaking `protocol` (the subprotocol the server
    /// chose, or nil).
    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                    didOpenWithProtocol protocol: String?)
    /// The server's close frame arrived, with its code (`.noStatusReceived` when it carried none) and its
    /// reason (nil when empty). The task completes afterwards.
    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                    didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?)
}

extension URLSessionWebSocketDelegate {
    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                           didOpenWithProtocol protocol: String?) {
        webSocketFallback(session, webSocketTask)?.urlSession(session, webSocketTask: webSocketTask,
                                                              didOpenWithProtocol: `protocol`)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                           didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        webSocketFallback(session, webSocketTask)?.urlSession(session, webSocketTask: webSocketTask,
                                                              didCloseWith: closeCode, reason: reason)
    }

    private func webSocketFallback(_ session: URLSession, _ task: URLSessionWebSocketTask)
        -> (any URLSessionWebSocketDelegate)? {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionWebSocketDelegate).self)
    }
}
