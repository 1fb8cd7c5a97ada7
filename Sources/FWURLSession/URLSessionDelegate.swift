import Foundation

// MARK: - Dispositions

extension URLSession {
    /// What a data task does after `urlSession(_:dataTask:didReceive:completionHandler:)`.
    public enum ResponseDisposition: Int, Sendable {
        /// Cancel the load; the task completes with `URLError.cancelled`.
        case cancel = 0
        /// Continue the load as a data task.
        case allow = 1
        /// Turn the data task into a download task.
        case becomeDownload = 2
        /// Turn the data task into a stream task over its connection (`didBecome streamTask`).
        case becomeStream = 3
    }
}

// MARK: - Delegate protocols

/// Session-wide events. Methods are called on the session's `delegateQueue`.
public protocol URLSessionDelegate: NSObjectProtocol, Sendable {
    /// The session was invalidated; this is the last message the session sends.
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)
    /// A connection-level challenge: for HTTPS, `NSURLAuthenticationMethodServerTrust` with the peer's
    /// chain in `protectionSpace.serverTrust`, and `NSURLAuthenticationMethodClientCertificate` when the
    /// server asks for a certificate. The connection waits for `completionHandler`. Without an
    /// implementation, the challenge goes to the task-level method of the task the connection is for.
    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable
                        (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)

    // Additions (defaults: URLSessionDelegate+Lifecycle.swift)

    /// A background session delivered the completions of every task it re-attached from its journal (see
    /// `URLSessionConfiguration.background(withIdentifier:)`).
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)
}

/// Events of any task. Methods are called on the session's `delegateQueue`, in order per task.
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    /// The server redirected the task: call `completionHandler` with the request to follow (the
    /// proposed one, a modified one) or nil to stop and deliver the 3xx response as the task's response.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void)
    /// A challenge for this task; also the connection-level challenges (server trust, client certificate)
    /// of the connection made for it when the session delegate does not implement
    /// `urlSession(_:didReceive:completionHandler:)`. The default performs default handling.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable
                        (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)
    /// Body bytes left for the server: `bytesSent` since the last call, `totalBytesSent` so far, and the
    /// expected total (the data's size, the file's size, the request's `Content-Length`, else -1).
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// The body stream must be sent again from its start (a redirect that keeps the body, or a resend on
    /// a new connection): answer with a new stream, or nil to fail the task.
    func urlSession(_ session: URLSession, task: URLSessionTask,
                    needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void)
    /// The task's metrics, delivered just before `didCompleteWithError`.
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics)
    /// The session `waitsForConnectivity` and the task found no route to its host: it waits for one (until
    /// `timeoutIntervalForResource`) instead of failing. Sent at most once per task.
    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask)
    /// The task finished; `error` is nil on success, a `URLError` otherwise (or the error a URL protocol
    /// failed with, as it is).
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)

    // Additions (defaults: URLSessionDelegate+Lifecycle.swift)

    /// The session made `task` (before any other message of the task).
    func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask)
    /// A task with an `earliestBeginDate` may begin: go on with `request` (`continueLoading`), load another
    /// (`useNewRequest` and the request), or `cancel`.
    func urlSession(_ session: URLSession, task: URLSessionTask, willBeginDelayedRequest request: URLRequest,
                    completionHandler: @escaping @Sendable (URLSession.DelayedRequestDisposition, URLRequest?) -> Void)
    /// An interim (1xx) response arrived before the final one.
    func urlSession(_ session: URLSession, task: URLSessionTask,
                    didReceiveInformationalResponse response: HTTPURLResponse)
}

/// Events of data tasks. Methods are called on the session's `delegateQueue`, in order per task.
public protocol URLSessionDataDelegate: URLSessionTaskDelegate {
    /// The response head arrived; no data is delivered until `completionHandler` is called.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void)
    /// A piece of the body arrived.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)
    /// The data task answered `.becomeDownload`: `downloadTask` receives the rest of the body (into a
    /// file) and every later message; the data task sends none.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                    didBecome downloadTask: URLSessionDownloadTask)
    /// The data task answered `.becomeStream`: `streamTask` carries its request and response and owns its
    /// connection, which left the pool; the bytes read after the response head are the first it reads. The
    /// data task sends no further message.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome streamTask: URLSessionStreamTask)
    /// The complete response is about to be stored in the URL cache, after the last body piece and before
    /// the completion: answer with what to store (`proposedResponse`, a changed one) or nil for nothing.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                    willCacheResponse proposedResponse: CachedURLResponse,
                    completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void)
}

/// FWNetworking addition: observe the connection a task uses and the exact bytes exchanged (what
/// `curl -v` and `curl --trace-ascii` show). Only tasks whose delegate conforms pay for the copies.
public protocol URLSessionTaskTraceDelegate: URLSessionTaskDelegate {
    /// The task got a connection: the peer's address and whether the connection was reused.
    func urlSession(_ session: URLSession, task: URLSessionTask, didUseConnectionTo remoteAddress: String?,
                    reused: Bool)
    /// The exact bytes of the request head, as written to the connection.
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendRequestHead head: Data)
    /// Bytes that left the connection for this task, in order (head and body).
    func urlSession(_ session: URLSession, task: URLSessionTask, didWriteBytes bytes: Data)
    /// Bytes read from the connection while this task was active, in order (exactly as received).
    func urlSession(_ session: URLSession, task: URLSessionTask, didReadBytes bytes: Data)
    /// The response head as received: status line and fields in wire order, CRLF line ends.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceiveResponseHead head: Data)
    /// Trailer fields that followed a chunked body, in order.
    func urlSession(_ session: URLSession, task: URLSessionTask,
                    didReceiveTrailers trailers: [(name: String, value: String)])
    /// One event of the task's event trace, in order: name resolution, connect, TLS, the pool's decision,
    /// bytes sent and received, the response head, each chunk's size, body pieces, trailers, deviations,
    /// retries and redirects, each with its time, hop, attempt and connection (schema:
    /// `URLSessionTaskTraceEvent`, the DocC article "Event trace"). `event.jsonLine` is what `fwcurl
    /// --trace-json` writes.
    func urlSession(_ session: URLSession, task: URLSessionTask, didEmitTraceEvent event: URLSessionTaskTraceEvent)
    /// Whether the event trace has a `chunk` event for each chunk of a chunked response body (FWNetworking
    /// addition; true unless the delegate says otherwise). Each chunk's data then comes as body pieces of its
    /// own (`didReceive data` per chunk, where chunks that arrived together otherwise come as one piece): a
    /// delegate that reads the bytes but writes no event trace (`fwcurl -v` without `--trace-json`) says false.
    var tracesChunks: Bool { get }
}

// MARK: - Default implementations
//
// A default implementation runs when the delegate it was called on does not implement the message. On a
// task's own delegate that means "not mine": the message goes on to the session's delegate
// (`DelegateRouter.fallback`), as Apple's URLSession falls back per message. On the session's delegate it
// does the default thing.

extension URLSessionDelegate {
    /// Does nothing.
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}

    /// Hands a connection-level challenge (server trust, client certificate) to the task-level method of
    /// the delegate of the task the connection is for (the task's own delegate, else this one when it is
    /// a task delegate), as URLSession does for a session delegate without this method; default handling
    /// for anything else.
    public func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable
                               (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        DelegateRouter.forwardConnectionChallenge(challenge, session: session, from: self,
                                                  completionHandler: completionHandler)
    }
}

extension URLSessionTaskDelegate {
    /// The session delegate's answer when this is the task's own delegate; else default handling (for a
    /// connection-level challenge too: it validates the server's trust against the configured roots, or
    /// sends no client certificate).
    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable
                               (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard let next = DelegateRouter.fallback(from: self, session: session, task: task,
                                                 (any URLSessionTaskDelegate).self) else {
            return completionHandler(.performDefaultHandling, nil)
        }
        next.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }

    /// The session delegate's choice when this is the task's own delegate; else follows the proposed request.
    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
                           completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard let next = DelegateRouter.fallback(from: self, session: session, task: task,
                                                 (any URLSessionTaskDelegate).self) else {
            return completionHandler(request)
        }
        next.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                        completionHandler: completionHandler)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                           totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionTaskDelegate).self)?
            .urlSession(session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                        totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    /// The session delegate's stream when this is the task's own delegate; else nil (without a new stream
    /// the task fails).
    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        guard let next = DelegateRouter.fallback(from: self, session: session, task: task,
                                                 (any URLSessionTaskDelegate).self) else {
            return completionHandler(nil)
        }
        next.urlSession(session, task: task, needNewBodyStream: completionHandler)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           didFinishCollecting metrics: URLSessionTaskMetrics) {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionTaskDelegate).self)?
            .urlSession(session, task: task, didFinishCollecting: metrics)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionTaskDelegate).self)?
            .urlSession(session, taskIsWaitingForConnectivity: task)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionTaskDelegate).self)?
            .urlSession(session, task: task, didCompleteWithError: error)
    }
}

extension URLSessionTaskTraceDelegate {
    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didUseConnectionTo remoteAddress: String?,
                           reused: Bool) {
        traceFallback(session, task)?.urlSession(session, task: task, didUseConnectionTo: remoteAddress, reused: reused)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendRequestHead head: Data) {
        traceFallback(session, task)?.urlSession(session, task: task, didSendRequestHead: head)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didWriteBytes bytes: Data) {
        traceFallback(session, task)?.urlSession(session, task: task, didWriteBytes: bytes)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didReadBytes bytes: Data) {
        traceFallback(session, task)?.urlSession(session, task: task, didReadBytes: bytes)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didReceiveResponseHead head: Data) {
        traceFallback(session, task)?.urlSession(session, task: task, didReceiveResponseHead: head)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           didReceiveTrailers trailers: [(name: String, value: String)]) {
        traceFallback(session, task)?.urlSession(session, task: task, didReceiveTrailers: trailers)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           didEmitTraceEvent event: URLSessionTaskTraceEvent) {
        traceFallback(session, task)?.urlSession(session, task: task, didEmitTraceEvent: event)
    }

    /// True: the event trace names each chunk of a chunked body.
    public var tracesChunks: Bool { true }

    private func traceFallback(_ session: URLSession, _ task: URLSessionTask) -> (any URLSessionTaskTraceDelegate)? {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionTaskTraceDelegate).self)
    }
}

extension URLSessionDataDelegate {
    /// The session delegate's disposition when this is the task's own delegate; else allows the response.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let next = dataFallback(session, dataTask) else { return completionHandler(.allow) }
        next.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        dataFallback(session, dataTask)?.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                           didBecome downloadTask: URLSessionDownloadTask) {
        dataFallback(session, dataTask)?.urlSession(session, dataTask: dataTask, didBecome: downloadTask)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                           didBecome streamTask: URLSessionStreamTask) {
        dataFallback(session, dataTask)?.urlSession(session, dataTask: dataTask, didBecome: streamTask)
    }

    /// The session delegate's answer when this is the task's own delegate; else stores the proposed response.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                           willCacheResponse proposedResponse: CachedURLResponse,
                           completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void) {
        guard let next = dataFallback(session, dataTask) else { return completionHandler(proposedResponse) }
        next.urlSession(session, dataTask: dataTask, willCacheResponse: proposedResponse,
                        completionHandler: completionHandler)
    }

    private func dataFallback(_ session: URLSession, _ task: URLSessionDataTask) -> (any URLSessionDataDelegate)? {
        DelegateRouter.dataFallback(from: self, session: session, task: task)
    }
}
