// URLSessionManager: the session manager of the seeds (FWURLSessionManager, which follows
// AFURLSessionManager), spelled as FWFramework's Swift port spells it, on FWURLSession.
//
// The manager is the delegate of the session it makes, on its own serial `operationQueue`. Each task made
// by its factories gets a per-task delegate (`URLSessionManagerTaskDelegate`) that keeps the task's
// upload and download `Progress`, collects its body, serializes the response and calls the completion
// handler on `completionQueue` inside `completionGroup`. The manager's block properties hear the same
// messages for every task of the session.
//
// This file holds what a subclass may override: the initializers, `session`, the delegate methods (each
// calls `super` first when overridden, as the seeds ask), coding and copying. The delegate methods are
// thin: what they do is in URLSessionManager+Events.swift and +Authentication.swift. Blocks and their
// setters: +Blocks; factories and per-task state: +Factories; notifications and the completion queue:
// +Notifications; the retrying request builder: +Retry; archiving and copying: +Coding.

import FWLoop
import Foundation

// MARK: - URLSessionManager

/// Creates and manages a `URLSession` whose delegate it is, and the tasks made through it.
///
/// Each task made by a factory (`dataTask(request:uploadProgress:downloadProgress:completionHandler:)`,
/// `uploadTask(...)`, `downloadTask(...)`) has upload and download `Progress` objects kept current from
/// the delegate messages, its body collected and serialized by `responseSerializer` on a concurrent
/// processing queue, and its completion handler called on `completionQueue` (the main queue when nil)
/// inside `completionGroup`; then `networkingTaskDidCompleteNotification` is posted on the main queue.
/// The block properties (`taskDidComplete`, ...) hear the delegate messages of every task of the session.
/// Server trust is judged by `securityPolicy`. Where the seeds, FWFramework's Swift port and URLSession
/// disagree (the retrying builder's default, a body stream sent again, factories after invalidation,
/// archiving the stores), the seeds are followed: the DocC article "What the manager does where its
/// sources disagree" says how.
///
/// On Linux the main queue runs only when the process runs it (`dispatchMain()`, `RunLoop.main`, or an
/// async `main`): a command-line tool or a server blocked elsewhere should set `completionQueue` (and
/// observes no did-complete notification). A completion that waits on the main queue for a few seconds
/// without starting logs one warning saying so.
///
/// Subclasses may override the delegate methods; an override must call `super` first. The manager keeps
/// its session, and the session keeps the manager as its delegate, until the session is invalidated
/// (`invalidateSessionCancelingTasks(_:resetSession:)`). Thread-safe: the settings, the blocks and the
/// per-task delegates are each in a `LockedBox`; no block is ever called with a lock held.
open class URLSessionManager: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate,
    URLSessionTaskStateDelegate, URLSessionDataCollectingDelegate, NSSecureCoding, NSCopying,
    @unchecked Sendable { // mutable state: `settings`, `blocks`, `taskDelegates` (LockedBoxes)
    /// What may be changed after creation.
    struct Settings {
        var session: URLSession?
        var responseSerializer: any URLResponseSerialization = JSONResponseSerializer()
        var securityPolicy = SecurityPolicy.default
        var completionQueue: DispatchQueue?
        var completionGroup: DispatchGroup?
        var attemptsToRecreateUploadTasksForBackgroundSessions = false
        var reachabilityManager = NetworkReachabilityManager.default
        /// `session` was invalidated and is kept (no reset): the factories can no longer run tasks on it.
        var sessionInvalidated = false
    }

    /// The configuration sessions are made with (a copy of the one given).
    let sessionConfiguration: URLSessionConfiguration
    let settings = LockedBox(Settings())
    let blocks = LockedBox(Blocks())
    /// The per-task delegates of the tasks the factories made, until they complete.
    let taskDelegates = LockedBox<[ObjectIdentifier: URLSessionManagerTaskDelegate]>([:])

    /// The queue the session's delegate messages run on; it runs one operation at a time.
    public let operationQueue: OperationQueue

    // MARK: Creating

    /// A manager for a session with the default configuration.
    override public convenience init() {
        self.init(sessionConfiguration: nil)
    }

    /// A manager for a session made with `configuration` (nil: `URLSessionConfiguration.default`), on
    /// first use of `session`. The designated initializer.
    public required init(sessionConfiguration configuration: URLSessionConfiguration?) {
        let configuration = configuration ?? .default
        sessionConfiguration = configuration.copy() as? URLSessionConfiguration ?? configuration
        // Serial, and it hosts the loop of each session the manager makes (FWURLSession's
        // SessionDelegateQueue.swift), as a session's own queue does.
        operationQueue = SessionDelegateQueue()
        operationQueue.name = "FWNetworking.URLSessionManager delegate queue"
        super.init()
    }

    /// Decodes a manager that `encode(with:)` archived: a new session from the archived configuration,
    /// the archived response serializer and security policy, and no blocks (see
    /// URLSessionManager+Coding.swift). Nil when the archive holds no configuration.
    public required convenience init?(coder: NSCoder) {
        guard let archived = Archived(coder: coder) else { return nil }
        self.init(sessionConfiguration: archived.configuration)
        archived.apply(to: self)
    }

    // MARK: The session

    /// The managed session, with this manager as its delegate on `operationQueue`; made on first use
    /// (again after `invalidateSessionCancelingTasks(_:resetSession:)` with `resetSession`).
    open var session: URLSession {
        // Made under the lock, so that two first uses cannot make two sessions (a second one would keep
        // this manager as its delegate until invalidated). Making a session calls no delegate.
        settings.withLock { settings in
            if let session = settings.session { return session }
            let made = URLSession(configuration: sessionConfiguration, delegate: self, delegateQueue: operationQueue)
            settings.session = made
            return made
        }
    }

    // MARK: Server trust

    /// Judges the server trust of the session's connections (unless `sessionDidReceiveAuthenticationChallenge`
    /// or `authenticationChallengeHandler` decide otherwise). `SecurityPolicy.default` by default.
    /// Open so that `HTTPSessionManager` can refuse a pinning policy without an https base URL.
    open var securityPolicy: SecurityPolicy {
        get { settings.withLock { $0.securityPolicy } }
        set { settings.withLock { $0.securityPolicy = newValue } }
    }

    // MARK: URLSessionDelegate

    /// Calls `sessionDidBecomeInvalid`, then posts `urlSessionDidInvalidateNotification`. When `session` is
    /// the managed session, the factories complete their tasks at once with an error from now on.
    open func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        sessionBecameInvalid(session, error: error)
    }

    /// A connection-level challenge: `sessionDidReceiveAuthenticationChallenge` when set (the security
    /// policy is then bypassed); otherwise the task-level method of the delegate of the task the
    /// connection is for (that task's own delegate, else this manager), as URLSession does.
    open func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                         completionHandler: @escaping @Sendable
                             (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        answerSessionChallenge(challenge, session: session, completionHandler: completionHandler)
    }

    /// Calls `didFinishEventsForBackgroundURLSession` on the main queue. A durable session
    /// (`URLSessionConfiguration.background(withIdentifier:)`) sends it once the completions of the tasks it
    /// re-attached from its journal were delivered.
    open func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        guard let block = blocks.withLock({ $0.didFinishEventsForBackgroundURLSession }) else { return }
        DispatchQueue.main.async { block(session) }
    }

    // MARK: URLSessionTaskDelegate

    /// Follows the request `taskWillPerformHTTPRedirection` returns (nil stops), else the proposed one.
    open func urlSession(_ session: URLSession, task: URLSessionTask,
                         willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
                         completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let block = blocks.withLock { $0.taskWillPerformHTTPRedirection }
        completionHandler(block.map { $0(session, task, response, request) } ?? request)
    }

    /// A task-level challenge: `authenticationChallengeHandler` first, then for server trust the
    /// `securityPolicy` (see URLSessionManager+Authentication.swift).
    open func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                         completionHandler: @escaping @Sendable
                             (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        answerTaskChallenge(challenge, task: task, session: session, completionHandler: completionHandler)
    }

    /// Updates the task's upload progress, then calls `taskDidSendBodyData`.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                         totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        taskSentBodyData(task, session: session, sent: bytesSent, total: totalBytesSent,
                         expected: totalBytesExpectedToSend)
    }

    /// The stream `taskNeedNewBodyStream` returns; without the block, a copy of the original request's
    /// body stream when that stream conforms to `NSCopying` (seed 004), else nil: the task then fails with
    /// `URLError.requestBodyStreamExhausted`, saying why (see URLSessionManager+Events.swift).
    open func urlSession(_ session: URLSession, task: URLSessionTask,
                         needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        provideNewBodyStream(for: task, session: session, completionHandler: completionHandler)
    }

    /// Keeps the metrics for the did-complete notification, then calls `taskDidFinishCollectingMetrics`.
    open func urlSession(_ session: URLSession, task: URLSessionTask,
                         didFinishCollecting metrics: URLSessionTaskMetrics) {
        taskDelegate(for: task)?.collected(metrics)
        blocks.withLock { $0.taskDidFinishCollectingMetrics }?(session, task, metrics)
    }

    /// Completes the task's per-task delegate (serialization, then the completion handler and the
    /// notification on their queues), then calls `taskDidComplete` (seed 004's order).
    open func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        taskCompleted(task, session: session, error: error)
    }

    // MARK: URLSessionDataDelegate

    /// The disposition `dataTaskDidReceiveResponse` returns, else `.allow`. (A body announced larger than the
    /// session's `httpResponseLimits.maxCollectedBodySize` has ended the task before: the task collects the
    /// body, see `urlSession(_:dataTask:didCollectBody:)`.)
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                         completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let block = blocks.withLock { $0.dataTaskDidReceiveResponse }
        completionHandler(block?(session, dataTask, response) ?? .allow)
    }

    /// Updates the download progress, then calls `dataTaskDidReceiveData`.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        taskDelegate(for: dataTask)?.received(data, from: dataTask)
        blocks.withLock { $0.dataTaskDidReceiveData }?(session, dataTask, data)
    }

    // MARK: URLSessionDataCollectingDelegate

    /// True for a task this manager's factories made: the task collects its body for the manager, within the
    /// session's `httpResponseLimits` (over them it ends with `dataLengthExceedsMaximum`, the completion's error).
    open func urlSession(_ session: URLSession, shouldCollectBodyOf dataTask: URLSessionDataTask) -> Bool {
        taskDelegate(for: dataTask) != nil
    }

    /// Keeps the body the task collected for the response serializer.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didCollectBody body: Data) {
        taskDelegate(for: dataTask)?.collected(body: body)
    }

    /// Gives the data task's per-task delegate to the download task, then calls
    /// `dataTaskDidBecomeDownloadTask`.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                         didBecome downloadTask: URLSessionDownloadTask) {
        moveTaskDelegate(from: dataTask, to: downloadTask)
        blocks.withLock { $0.dataTaskDidBecomeDownloadTask }?(session, dataTask, downloadTask)
    }

    /// Stores what `dataTaskWillCacheResponse` returns, else the proposed response.
    open func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                         willCacheResponse proposedResponse: CachedURLResponse,
                         completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void) {
        guard let block = blocks.withLock({ $0.dataTaskWillCacheResponse }) else {
            return completionHandler(proposedResponse)
        }
        completionHandler(block(session, dataTask, proposedResponse))
    }

    // MARK: URLSessionDownloadDelegate

    /// Moves the file where `downloadTaskDidFinishDownloading` says, else where the task's destination
    /// says, posting the move notifications.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                         didFinishDownloadingTo location: URL) {
        downloadFinished(downloadTask, session: session, location: location)
    }

    /// Updates the download progress, then calls `downloadTaskDidWriteData`.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                         totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        taskDelegate(for: downloadTask)?.wrote(total: totalBytesWritten, expected: totalBytesExpectedToWrite)
        blocks.withLock { $0.downloadTaskDidWriteData }?(
            session, downloadTask, bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)
    }

    /// Updates the download progress, then calls `downloadTaskDidResume`.
    open func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                         didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        taskDelegate(for: downloadTask)?.wrote(total: fileOffset, expected: expectedTotalBytes)
        blocks.withLock { $0.downloadTaskDidResume }?(session, downloadTask, fileOffset, expectedTotalBytes)
    }

    // MARK: URLSessionTaskStateDelegate

    /// Posts `networkingTaskDidResumeNotification` for a task this manager made.
    open func urlSession(_ session: URLSession, taskDidResume task: URLSessionTask) {
        postStateChange(of: task, name: Self.networkingTaskDidResumeNotification)
    }

    /// Posts `networkingTaskDidSuspendNotification` for a task this manager made.
    open func urlSession(_ session: URLSession, taskDidSuspend task: URLSessionTask) {
        postStateChange(of: task, name: Self.networkingTaskDidSuspendNotification)
    }

    // MARK: NSSecureCoding, NSCopying

    /// True: a manager decodes only the types it encoded.
    public class var supportsSecureCoding: Bool { true }

    /// Encodes the session configuration, the response serializer and the security policy; never the
    /// blocks (set them again after decoding).
    open func encode(with coder: NSCoder) {
        encodeManager(with: coder)
    }

    /// A new manager of the same class, with a new session from the same configuration, copies of the
    /// response serializer and the security policy, and no blocks (they often capture the original).
    open func copy(with zone: NSZone? = nil) -> Any {
        makeCopy()
    }

    // MARK: Description

    /// The manager's class and identity, its session (nil before first use: describing a manager does not
    /// make its session) and its operation queue.
    open override var description: String {
        "<\(type(of: self)): \(ObjectIdentifier(self)), session: \(describedSession), "
            + "operationQueue: \(operationQueue)>"
    }

    /// The session as a description shows it: "nil" until it is made, so that describing never makes it.
    final var describedSession: String {
        settings.withLock { $0.session }.map { "\($0)" } ?? "nil"
    }
}
