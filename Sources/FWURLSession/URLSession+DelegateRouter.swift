import Foundation
import FWTransport

// MARK: - The delegate router
//
// Which delegate hears a task's message is decided here and nowhere else (STYLE.md principle 17). Apple's
// rule is per message: the task's own delegate (`URLSessionTask.delegate`) when it implements the message,
// else the session's delegate. Swift cannot ask an object whether it implements a protocol method, so the
// rule is built from two halves:
//
//   1. Here, per protocol: the task's delegate is asked first when it conforms to the protocol that declares
//      the message (`URLSessionDataDelegate` for `didReceive data`, ...), else the session's delegate when
//      it does.
//   2. In the protocols' default implementations (`URLSessionDelegate.swift`, `URLSessionDownloadDelegate.swift`):
//      a default that runs on the task's own delegate means that delegate did not implement the message, so
//      it hands the message on to the session's delegate (`fallback(from:task:)`); a default that runs on
//      the session's delegate does the default thing.
//
// Connection-level challenges (server trust, client certificate) go to the session delegate's session-level
// method; its default hands them to the task-level method of the task the connection is made for.
//
// The router is also the seam the manager layer (`FWNetworking.URLSessionManager`) stands on: the manager
// is a session delegate, and a task with a delegate of its own still reaches the manager for every message
// that delegate does not implement.

/// Decides which delegate hears each message of a session's tasks (every task knows its session).
enum DelegateRouter {
    // MARK: Choosing

    /// The delegate that hears `task`'s messages of protocol `Delegate`: the task's own when it conforms,
    /// else the session's when it does.
    static func delegate<Delegate>(of task: URLSessionTask, _: Delegate.Type = Delegate.self) -> Delegate? {
        if let own = task.delegate as? Delegate { return own }
        return task.session.delegate as? Delegate
    }

    // MARK: Who listens

    /// The task-level protocols a task's delegates implement, its own or its session's: what a lookup of
    /// `delegate(of:)` would find, worked out when the task is made and whenever its delegate is set
    /// (`TaskProperties.hearers`). Asking whether anybody hears a message then reads one field of the task
    /// instead of both delegates (a lock on each) and casting them. The session's part is worked out once,
    /// when the session is made: its delegate never changes but to nil at invalidation, after which a lookup
    /// finds nobody, as before.
    struct Hearers: OptionSet, Sendable {
        let rawValue: UInt8

        /// `URLSessionTaskDelegate` (every protocol below refines it).
        static let task = Hearers(rawValue: 1 << 0)
        static let data = Hearers(rawValue: 1 << 1)
        static let collecting = Hearers(rawValue: 1 << 2)
        static let state = Hearers(rawValue: 1 << 3)
        static let trace = Hearers(rawValue: 1 << 4)

        init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// Whether every protocol of `protocols` is heard. A plain bit test: the hot paths ask it several times
        /// per request, and `SetAlgebra`'s generic defaults allocate in a debug build.
        func includes(_ protocols: Hearers) -> Bool {
            rawValue & protocols.rawValue == protocols.rawValue
        }

        /// What `delegate` implements.
        init(_ delegate: (any URLSessionDelegate)?) {
            guard let delegate = delegate as? any URLSessionTaskDelegate else {
                self = []
                return
            }
            self = .task
            if delegate is any URLSessionDataDelegate { insert(.data) }
            if delegate is any URLSessionDataCollectingDelegate { insert(.collecting) }
            if delegate is any URLSessionTaskStateDelegate { insert(.state) }
            if delegate is any URLSessionTaskTraceDelegate { insert(.trace) }
        }
    }

    /// Whether a delegate of `task` implements `protocols`' messages.
    static func hears(_ protocols: Hearers, task: URLSessionTask) -> Bool {
        task.withCore { $0.properties.hearers }.includes(protocols)
    }

    /// For a protocol's default implementation running on `delegate`: the session's delegate to hand the
    /// message to when `delegate` is `task`'s own (it did not implement the message), else nil.
    static func fallback<Delegate>(from delegate: AnyObject, session: URLSession, task: URLSessionTask,
                                   _: Delegate.Type = Delegate.self) -> Delegate? {
        guard let own = task.delegate, own === delegate,
              let sessionDelegate = session.delegate, sessionDelegate !== delegate else { return nil }
        return sessionDelegate as? Delegate
    }

    // MARK: Task messages

    static func didSendBodyData(task: URLSessionTask, _ sent: Int64, total: Int64, expected: Int64) {
        let session = task.session
        delegate(of: task, (any URLSessionTaskDelegate).self)?.urlSession(
            session, task: task, didSendBodyData: sent, totalBytesSent: total, totalBytesExpectedToSend: expected)
    }

    /// `needNewBodyStream` on the delegate queue; without a task delegate the body cannot be sent again.
    static func needNewBodyStream(task: URLSessionTask, _ provide: @escaping @Sendable (InputStream?) -> Void) {
        let session = task.session
        session.delegateQueue.addOperation {
            guard let delegate = delegate(of: task, (any URLSessionTaskDelegate).self) else { return provide(nil) }
            delegate.urlSession(session, task: task, needNewBodyStream: provide)
        }
    }

    /// Offers a redirect: `decide` gets the request to follow (or nil), at once when no delegate hears it.
    static func willPerformHTTPRedirection(task: URLSessionTask, response: HTTPURLResponse, newRequest: URLRequest,
                                    decide: @escaping @Sendable (URLRequest?) -> Void) -> Bool {
        guard let delegate = delegate(of: task, (any URLSessionTaskDelegate).self) else { return false }
        delegate.urlSession(task.session, task: task, willPerformHTTPRedirection: response, newRequest: newRequest,
                            completionHandler: decide)
        return true
    }

    /// A task-level challenge (a 401): to the task's delegate, else the session's; nobody to ask answers
    /// `performDefaultHandling` at once.
    static func didReceive(_ challenge: URLAuthenticationChallenge, task: URLSessionTask,
                           answer: @escaping ChallengeAnswer) {
        guard let delegate = delegate(of: task, (any URLSessionTaskDelegate).self) else {
            return answer(.performDefaultHandling, nil)
        }
        delegate.urlSession(task.session, task: task, didReceive: challenge, completionHandler: answer)
    }

    static func didFinishCollecting(task: URLSessionTask, _ metrics: URLSessionTaskMetrics) {
        let session = task.session
        delegate(of: task, (any URLSessionTaskDelegate).self)?.urlSession(session, task: task,
                                                                          didFinishCollecting: metrics)
    }

    static func taskIsWaitingForConnectivity(_ task: URLSessionTask) {
        let session = task.session
        delegate(of: task, (any URLSessionTaskDelegate).self)?.urlSession(session, taskIsWaitingForConnectivity: task)
    }

    static func didComplete(task: URLSessionTask, error: (any Error)?) {
        guard hears(.task, task: task) else { return }
        let session = task.session
        delegate(of: task, (any URLSessionTaskDelegate).self)?.urlSession(session, task: task,
                                                                          didCompleteWithError: error)
    }

    // MARK: Data messages

    /// The response, with the disposition it answers; false when no data delegate hears it.
    static func didReceive(response: URLResponse, dataTask: URLSessionDataTask,
                    answer: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) -> Bool {
        guard hears(.data, task: dataTask),
              let delegate = delegate(of: dataTask, (any URLSessionDataDelegate).self) else { return false }
        delegate.urlSession(dataTask.session, dataTask: dataTask, didReceive: response, completionHandler: answer)
        return true
    }

    static func didReceive(data: Data, dataTask: URLSessionDataTask) {
        guard hears(.data, task: dataTask) else { return }
        let session = dataTask.session
        delegate(of: dataTask, (any URLSessionDataDelegate).self)?.urlSession(session, dataTask: dataTask,
                                                                              didReceive: data)
    }

    /// The response about to be cached; `decide` gets what to store (nil: nothing), at once without a data
    /// delegate.
    static func willCacheResponse(_ proposed: CachedURLResponse, dataTask: URLSessionDataTask,
                                  decide: @escaping @Sendable (CachedURLResponse?) -> Void) {
        guard let delegate = delegate(of: dataTask, (any URLSessionDataDelegate).self) else { return decide(proposed) }
        delegate.urlSession(dataTask.session, dataTask: dataTask, willCacheResponse: proposed,
                            completionHandler: decide)
    }

    /// The routed data delegate when it is a `URLSessionDataCollectingDelegate` that wants `dataTask`'s body
    /// (asked when the response arrives); nil otherwise.
    static func bodyCollectingDelegate(of dataTask: URLSessionDataTask) -> (any URLSessionDataCollectingDelegate)? {
        guard hears(.collecting, task: dataTask),
              let delegate = delegate(of: dataTask, (any URLSessionDataCollectingDelegate).self),
              delegate.urlSession(dataTask.session, shouldCollectBodyOf: dataTask) else { return nil }
        return delegate
    }

    static func didCollectBody(_ body: Data, dataTask: URLSessionDataTask) {
        delegate(of: dataTask, (any URLSessionDataCollectingDelegate).self)?.urlSession(
            dataTask.session, dataTask: dataTask, didCollectBody: body)
    }

    static func didBecome(_ downloadTask: URLSessionDownloadTask, dataTask: URLSessionDataTask) {
        let session = dataTask.session
        delegate(of: dataTask, (any URLSessionDataDelegate).self)?.urlSession(session, dataTask: dataTask,
                                                                              didBecome: downloadTask)
    }

    // MARK: WebSocket messages

    static func didOpen(webSocketTask task: URLSessionWebSocketTask, protocol chosen: String?) {
        let session = task.session
        delegate(of: task, (any URLSessionWebSocketDelegate).self)?.urlSession(session, webSocketTask: task,
                                                                               didOpenWithProtocol: chosen)
    }

    static func didClose(webSocketTask task: URLSessionWebSocketTask, code: URLSessionWebSocketTask.CloseCode,
                         reason: Data?) {
        let session = task.session
        delegate(of: task, (any URLSessionWebSocketDelegate).self)?.urlSession(session, webSocketTask: task,
                                                                               didCloseWith: code, reason: reason)
    }

    // MARK: Download messages

    /// The finished file; false when no download delegate hears it.
    static func didFinishDownloading(task: URLSessionDownloadTask, to location: URL) -> Bool {
        guard let delegate = delegate(of: task, (any URLSessionDownloadDelegate).self) else { return false }
        delegate.urlSession(task.session, downloadTask: task, didFinishDownloadingTo: location)
        return true
    }

    static func didWriteData(task: URLSessionDownloadTask, _ written: Int64, total: Int64, expected: Int64) {
        let session = task.session
        delegate(of: task, (any URLSessionDownloadDelegate).self)?.urlSession(
            session, downloadTask: task, didWriteData: written, totalBytesWritten: total,
            totalBytesExpectedToWrite: expected)
    }

    static func didResume(task: URLSessionDownloadTask, atOffset offset: Int64, expected: Int64) {
        let session = task.session
        delegate(of: task, (any URLSessionDownloadDelegate).self)?.urlSession(
            session, downloadTask: task, didResumeAtOffset: offset, expectedTotalBytes: expected)
    }

    // MARK: State messages (FWNetworking addition)

    /// Whether anybody hears `task`'s state changes (only then are they queued).
    static func hearsStateChanges(task: URLSessionTask) -> Bool {
        hears(.state, task: task)
    }

    /// `resume()` made `task` run (delegate queue; see `DeliveryQueue` for the order).
    static func didResume(task: URLSessionTask) {
        delegate(of: task, (any URLSessionTaskStateDelegate).self)?.urlSession(task.session, taskDidResume: task)
    }

    /// `suspend()` stopped `task` (delegate queue; see `DeliveryQueue` for the order).
    static func didSuspend(task: URLSessionTask) {
        delegate(of: task, (any URLSessionTaskStateDelegate).self)?.urlSession(task.session, taskDidSuspend: task)
    }

    // MARK: Trace messages (FWNetworking addition)

    /// Whether anybody hears `task`'s trace messages (the transport then copies the bytes it moves, and
    /// reports the connection each request uses, for `didUseConnection`: its only reader).
    static func wantsTrace(task: URLSessionTask) -> Bool {
        hears(.trace, task: task)
    }

    /// Whether `task`'s trace delegate wants each chunk of a chunked body as a `chunk` trace event.
    static func tracesChunks(task: URLSessionTask) -> Bool {
        guard hears(.trace, task: task) else { return false }
        return delegate(of: task, (any URLSessionTaskTraceDelegate).self)?.tracesChunks ?? false
    }

    private static func trace(_ task: URLSessionTask,
                              _ message: (any URLSessionTaskTraceDelegate, URLSession) -> Void) {
        guard hears(.trace, task: task),
              let delegate = delegate(of: task, (any URLSessionTaskTraceDelegate).self) else { return }
        message(delegate, task.session)
    }

    static func didUseConnection(task: URLSessionTask, to remoteAddress: String?, reused: Bool) {
        trace(task) { $0.urlSession($1, task: task, didUseConnectionTo: remoteAddress, reused: reused) }
    }

    // The payloads are made only when somebody listens.

    static func didSendRequestHead(task: URLSessionTask, _ head: @autoclosure () -> Data) {
        trace(task) { $0.urlSession($1, task: task, didSendRequestHead: head()) }
    }

    static func didWriteBytes(task: URLSessionTask, _ bytes: @autoclosure () -> Data) {
        trace(task) { $0.urlSession($1, task: task, didWriteBytes: bytes()) }
    }

    static func didReadBytes(task: URLSessionTask, _ bytes: @autoclosure () -> Data) {
        trace(task) { $0.urlSession($1, task: task, didReadBytes: bytes()) }
    }

    static func didReceiveResponseHead(task: URLSessionTask, _ head: @autoclosure () -> Data) {
        trace(task) { $0.urlSession($1, task: task, didReceiveResponseHead: head()) }
    }

    static func didEmitTraceEvent(task: URLSessionTask, _ event: @autoclosure () -> URLSessionTaskTraceEvent) {
        trace(task) { $0.urlSession($1, task: task, didEmitTraceEvent: event()) }
    }

    static func didReceiveTrailers(task: URLSessionTask,
                                   _ trailers: @autoclosure () -> [(name: String, value: String)]) {
        trace(task) { $0.urlSession($1, task: task, didReceiveTrailers: trailers()) }
    }
}

// MARK: - Connection-level challenges

extension DelegateRouter {
    /// The answer to a challenge.
    typealias ChallengeAnswer = @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void

    /// Raises a connection-level challenge for `space` on behalf of `task` (the task the connection is made
    /// for; nil when none waits any more) and calls `answer` exactly once. The session delegate gets the
    /// session-level method on the delegate queue; without one, the task's delegate gets the task-level
    /// method there; with neither, `answer` gets `performDefaultHandling` at once, on the calling thread.
    static func raiseConnectionChallenge(_ space: URLProtectionSpace, session: URLSession, for task: URLSessionTask?,
                                         answer: @escaping ChallengeAnswer) {
        let sender = URLSessionAuthenticationChallengeSender(task: task, completion: answer)
        let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil,
                                                   previousFailureCount: 0, failureResponse: nil, error: nil,
                                                   sender: sender)
        if let delegate = session.delegate {
            session.delegateQueue.addOperation {
                delegate.urlSession(session, didReceive: challenge, completionHandler: sender.answer)
            }
        } else if let task, let taskDelegate = task.delegate {
            session.delegateQueue.addOperation {
                taskDelegate.urlSession(session, task: task, didReceive: challenge, completionHandler: sender.answer)
            }
        } else {
            sender.answer(.performDefaultHandling, nil)
        }
    }

    /// What the session-level challenge method does when a delegate does not implement it: a
    /// connection-level challenge this session raised goes to the task-level method of the task's own
    /// delegate, else of the session's delegate when it is a task delegate; anything else gets
    /// `performDefaultHandling`.
    static func forwardConnectionChallenge(_ challenge: URLAuthenticationChallenge, session: URLSession,
                                           from sessionDelegate: any URLSessionDelegate,
                                           completionHandler: @escaping ChallengeAnswer) {
        guard let sender = challenge.sender as? URLSessionAuthenticationChallengeSender, let task = sender.task,
              let delegate = task.delegate ?? (sessionDelegate as? any URLSessionTaskDelegate)
        else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        delegate.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }
}
