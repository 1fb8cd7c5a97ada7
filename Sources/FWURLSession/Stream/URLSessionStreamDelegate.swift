import Foundation

// MARK: - URLSessionStreamDelegate

/// Events of stream tasks. Methods are called on the session's `delegateQueue`, in order per task.
public protocol URLSessionStreamDelegate: URLSessionTaskDelegate {
    /// The peer ended its side of the connection: reads drain what was received, then report the end.
    func urlSession(_ session: URLSession, readClosedFor streamTask: URLSessionStreamTask)
    /// The write side of the connection was shut down (`closeWrite()` after the queued writes went out).
    func urlSession(_ session: URLSession, writeClosedFor streamTask: URLSessionStreamTask)
    /// A better route to the host exists. Never sent on Linux: there is no route advisory to hear it from.
    func urlSession(_ session: URLSession, betterRouteDiscoveredFor streamTask: URLSessionStreamTask)
    /// `captureStreams()` handed the connection over as a pair of unopened streams; the task completes after
    /// this message.
    func urlSession(_ session: URLSession, streamTask: URLSessionStreamTask, didBecome inputStream: InputStream,
                    outputStream: OutputStream)
}

extension URLSessionStreamDelegate {
    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, readClosedFor streamTask: URLSessionStreamTask) {
        streamFallback(session, streamTask)?.urlSession(session, readClosedFor: streamTask)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, writeClosedFor streamTask: URLSessionStreamTask) {
        streamFallback(session, streamTask)?.urlSession(session, writeClosedFor: streamTask)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, betterRouteDiscoveredFor streamTask: URLSessionStreamTask) {
        streamFallback(session, streamTask)?.urlSession(session, betterRouteDiscoveredFor: streamTask)
    }

    /// Tells the session delegate when this is the task's own delegate; else closes the streams (nobody takes
    /// them, and an open pair would hold the connection).
    public func urlSession(_ session: URLSession, streamTask: URLSessionStreamTask, didBecome inputStream: InputStream,
                           outputStream: OutputStream) {
        guard let next = streamFallback(session, streamTask) else {
            inputStream.close()
            outputStream.close()
            return
        }
        next.urlSession(session, streamTask: streamTask, didBecome: inputStream, outputStream: outputStream)
    }

    private func streamFallback(_ session: URLSession, _ task: URLSessionStreamTask)
        -> (any URLSessionStreamDelegate)? {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionStreamDelegate).self)
    }
}

// MARK: - The delegate router: stream messages

extension DelegateRouter {
    static func readClosed(streamTask task: URLSessionStreamTask) {
        delegate(of: task, (any URLSessionStreamDelegate).self)?.urlSession(task.session, readClosedFor: task)
    }

    static func writeClosed(streamTask task: URLSessionStreamTask) {
        delegate(of: task, (any URLSessionStreamDelegate).self)?.urlSession(task.session, writeClosedFor: task)
    }

    /// The captured streams; false when no stream delegate hears them (the caller closes them).
    static func didBecome(streamTask task: URLSessionStreamTask, _ input: InputStream, _ output: OutputStream) -> Bool {
        guard let delegate = delegate(of: task, (any URLSessionStreamDelegate).self) else { return false }
        delegate.urlSession(task.session, streamTask: task, didBecome: input, outputStream: output)
        return true
    }

    static func didBecome(_ streamTask: URLSessionStreamTask, dataTask: URLSessionDataTask) {
        let session = dataTask.session
        delegate(of: dataTask, (any URLSessionDataDelegate).self)?.urlSession(session, dataTask: dataTask,
                                                                              didBecome: streamTask)
    }
}
