import Foundation
import FWTLS
import FWTransport

// MARK: - URLSession

/// Coordinates a group of tasks that share a configuration, a connection pool and a delegate.
///
/// Source-compatible with FoundationNetworking's `URLSession`, without libcurl: requests run on
/// FWNetworking's own HTTP/1.1 engine. The session keeps the task registry, the invalidation and the
/// delegate; each task drives its own loads and delivers its own events, and `DelegateRouter` decides which
/// delegate hears each message. Thread-safe: what changes (the tasks, the invalidation, the description)
/// is a `SessionRegistry` in one `LockedBox`, reached through `withRegistry`; everything else is immutable. Internal methods declared in the class
/// body are `final`: they must not take vtable slots, or adding one shifts the slots of the `open`
/// methods that clients compiled against.
open class URLSession: NSObject, @unchecked Sendable { // mutable state: `registry` (LockedBox)
    private let registry: LockedBox<SessionRegistry>
    private let isShared: Bool
    /// The engine; nil only when the process could not start its event loops.
    let transport: HTTPTransport?
    /// The tasks' resource timeouts and earliest begin dates, as timers on one of the session's loops.
    let taskDeadlines: TaskDeadlines
    /// The session's time line: its loops' clock, and the date its reported dates derive from.
    let clock: SessionClock
    /// The buffers of large collected bodies, reused from response to response (`BodyBufferPool`).
    let bodyBuffers: BodyBufferPool
    /// Runs the tasks' deliveries on `delegateQueue`.
    let deliveryPump: DeliveryPump
    /// Runs Swift concurrency jobs on `delegateQueue` (`fwExecutor`).
    let executor: URLSessionExecutor
    /// The loop `delegateQueue` hosts for this session's connections, or nil on the threaded engine.
    package var hostedLoop: EventLoop? {
        deliveryPump.hostedLoop
    }

    /// Runs `work` inside an operation of `delegateQueue` (`URLSessionExecutor.run`: on a hosted session as a
    /// task of its loop, else as an operation).
    final func onDelegateQueue(_ work: @escaping @Sendable () -> Void) {
        executor.run(work)
    }
    /// The proxies of the session's requests (from the configuration, else the environment at creation).
    let proxySettings: ProxySettings
    /// A background session's journal and re-attached tasks (Background/DurableSession.swift); nil otherwise.
    let durable: DurableSession?

    /// The session's own copy of the configuration it was created with, read by its tasks. Never handed
    /// out: `configuration` returns a copy of it, so a caller's changes cannot reach a running session.
    let sessionConfiguration: URLSessionConfiguration
    /// The default fields of its requests, made once from `sessionConfiguration` (which never changes).
    let requestTemplate: RequestTemplate
    /// The task-level protocols the session's delegate implements (`DelegateRouter.Hearers`).
    let delegateHearers: DelegateRouter.Hearers
    /// A copy of the configuration the session was created with: a new copy at each call, as
    /// FoundationNetworking's `@NSCopying` property (changing it does not change the session).
    public var configuration: URLSessionConfiguration {
        sessionConfiguration.copy() as? URLSessionConfiguration ?? sessionConfiguration
    }
    /// The queue delegate methods and completion handlers run on.
    public let delegateQueue: OperationQueue
    /// A description for the app's own use.
    public var sessionDescription: String? {
        get { withRegistry { $0.sessionDescription } }
        set { withRegistry { $0.sessionDescription = newValue } }
    }

    /// The session's delegate; released once the session is invalidated.
    public var delegate: (any URLSessionDelegate)? { withRegistry { $0.delegate } }

    /// The process-wide session with the default configuration and no delegate. It cannot be
    /// invalidated.
    public class var shared: URLSession { sharedSession }
    private static let sharedSession = URLSession(configuration: .default, delegate: nil, delegateQueue: nil,
                                                  isShared: true)

    /// Creates a session with no delegate.
    public convenience init(configuration: URLSessionConfiguration) {
        self.init(configuration: configuration, delegate: nil, delegateQueue: nil, isShared: false)
    }

    /// Creates a session. Without a `queue`, delegate messages go to a new serial operation queue.
    public convenience init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
                            delegateQueue queue: OperationQueue?) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: queue, isShared: false)
    }

    /// The public paths: without a `queue` (or with a `SessionDelegateQueue`, a session manager's), the queue
    /// hosts the session's connections' loop (unless the configuration says not to, or the process cannot make
    /// one).
    private convenience init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
                             delegateQueue queue: OperationQueue?, isShared: Bool) {
        let hostingQueue = queue == nil ? SessionDelegateQueue() : queue as? SessionDelegateQueue
        let hosted = hostingQueue.flatMap { hostingQueue in
            configuration.hostsConnectionsOnDelegateQueue
                ? SessionEngine.hosted(by: hostingQueue, busyPoll: configuration.busyPollInterval) : nil
        }
        self.init(configuration: configuration, delegate: delegate, delegateQueue: queue ?? hostingQueue,
                  isShared: isShared, engine: hosted ?? SessionEngine.shared)
    }

    /// Creates a session whose connections, deadlines and times run on `engine` (tests: the loops of a
    /// `ManualEventLoopGroup`, whose clock moves only when the test advances it).
    convenience init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
                     delegateQueue queue: OperationQueue?, engine: SessionEngine) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: queue, isShared: false,
                  engine: engine)
    }

    /// `engine` is nil when the process could not start the shared loops: every task then fails.
    private init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
                 delegateQueue queue: OperationQueue?, isShared: Bool, engine: SessionEngine?) {
        let configuration = configuration.sessionCopy()
        self.sessionConfiguration = configuration
        self.requestTemplate = RequestTemplate(configuration: configuration)
        self.delegateHearers = DelegateRouter.Hearers(delegate)
        self.delegateQueue = queue ?? SessionDelegateQueue()
        self.isShared = isShared
        let durable = isShared ? nil : DurableSession.make(configuration)
        self.durable = durable
        self.registry = LockedBox(SessionRegistry(firstIdentifier: (durable?.highestJournaledIdentifier ?? 0) + 1,
                                                  delegate: delegate))
        var tls = TLSConfiguration(
            minimumVersion: configuration.tlsMinimumSupportedProtocolVersion.tlsVersion ?? .v1_2,
            maximumVersion: configuration.tlsMaximumSupportedProtocolVersion.tlsVersion ?? .v1_3,
            trustRoots: configuration.tlsTrustRoots,
            requestsOCSPStapling: configuration.tlsRequestsOCSPStapling,
            resumesSessions: configuration.tlsSessionResumption)
        tls.requestsSignedCertificateTimestamps = configuration.tlsRequestsSignedCertificateTimestamps
        tls.certificateTransparencyPolicy = configuration.tlsCertificateTransparencyPolicy
        let reference = SessionReference()
        self.transport = engine.map { engine in HTTPTransport(configuration: HTTPTransport.Configuration(
            maxConnectionsPerHost: configuration.httpMaximumConnectionsPerHost,
            connectTimeout: TransportRequest.timeout([configuration.timeoutIntervalForRequest]),
            limits: configuration.httpResponseLimits,
            tls: tls,
            serverTrustHandler: Self.serverTrustHandler(reference),
            clientIdentityHandler: Self.clientIdentityHandler(reference),
            pipeliningDepth: configuration.httpShouldUsePipelining ? configuration.httpPipeliningDepth : 1,
            channelLoops: engine.channelLoops
        ), group: engine.group) }
        self.deliveryPump = DeliveryPump(queue: delegateQueue, hostedLoop: engine?.hostedLoop)
        self.executor = URLSessionExecutor(queue: delegateQueue, hostedLoop: engine?.hostedLoop)
        self.proxySettings = ProxySettings(configuration: configuration)
        self.clock = SessionClock(engine?.clock ?? MonotonicClock())
        self.bodyBuffers = BodyBufferPool(loop: engine?.group.next(), clock: clock)
        self.taskDeadlines = TaskDeadlines(loop: engine?.group.next()) { [registry] due in
            let tasks = registry.withLock { registry in // `self` does not exist yet: the box's own door
                due.compactMap { due in registry.tasks[TaskKey(due.id)].map { (due.kind, $0) } }
            }
            for (kind, task) in tasks {
                switch kind {
                case .resource: task.resourceTimeoutElapsed()
                case .begin: task.enqueue(.begin)
                case .retry: task.durableRetryDue()
                }
            }
        }
        super.init()
        reference.session = self
        durable?.reattach(to: self)
    }

    // MARK: Data tasks

    /// Creates a data task whose messages go to the delegate.
    open func dataTask(with request: URLRequest) -> URLSessionDataTask {
        register { URLSessionDataTask(session: self, identifier: $0, request: request, sink: DataDelegateSink.shared) }
    }

    /// Creates a data task for a GET of `url`, whose messages go to the delegate.
    open func dataTask(with url: URL) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url))
    }

    /// Creates a data task that calls `completionHandler` on the delegate queue with the whole body.
    open func dataTask(with request: URLRequest,
                       completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDataTask {
        register {
            URLSessionDataTask(session: self, identifier: $0, request: request, sink: CollectingSink.shared,
                               sinkState: .data(completionHandler))
        }
    }

    /// Creates a data task for a GET of `url` that calls `completionHandler` with the whole body.
    open func dataTask(with url: URL,
                       completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    // MARK: Upload tasks

    /// Creates a task that sends `bodyData` as the body of `request` (the request's own body is ignored).
    open func uploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
        makeUploadTask(request, body: .data(bodyData), sink: DataDelegateSink.shared)
    }

    /// Creates a task that sends `bodyData` and calls `completionHandler` with the response body.
    open func uploadTask(with request: URLRequest, from bodyData: Data?,
                         completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionUploadTask {
        makeUploadTask(request, body: .data(bodyData ?? Data()), sink: CollectingSink.shared,
                       completion: completionHandler)
    }

    /// Creates a task that streams the file at `fileURL` as the body, in constant memory.
    open func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        makeUploadTask(request, body: .file(fileURL), sink: DataDelegateSink.shared)
    }

    /// Creates a task that streams the file at `fileURL` and calls `completionHandler` with the response body.
    open func uploadTask(with request: URLRequest, fromFile fileURL: URL,
                         completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionUploadTask {
        makeUploadTask(request, body: .file(fileURL), sink: CollectingSink.shared,
                       completion: completionHandler)
    }

    /// Creates a task whose body is read from a stream: the request's `httpBodyStream` if it has one,
    /// otherwise (and for every resend) the one the delegate gives in `needNewBodyStream`.
    open func uploadTask(withStreamedRequest request: URLRequest) -> URLSessionUploadTask {
        makeUploadTask(request, body: .stream, sink: DataDelegateSink.shared)
    }

    // MARK: Download tasks

    /// Creates a task that downloads `request`'s response body to a temporary file.
    open func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        makeDownloadTask(request, completion: nil)
    }

    /// Creates a task that downloads `url` to a temporary file.
    open func downloadTask(with url: URL) -> URLSessionDownloadTask {
        makeDownloadTask(URLRequest(url: url), completion: nil)
    }

    /// Creates a download task that calls `completionHandler` with the file (removed when it returns).
    open func downloadTask(with request: URLRequest,
                           completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDownloadTask {
        makeDownloadTask(request, completion: completionHandler)
    }

    /// Creates a download task for `url` that calls `completionHandler` with the file.
    open func downloadTask(with url: URL,
                           completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDownloadTask {
        makeDownloadTask(URLRequest(url: url), completion: completionHandler)
    }

    /// Creates a task that continues the download `resumeData` describes (see `DownloadResumeData`): it asks
    /// for the rest with `Range` and `If-Range`, appends a 206 to the partial file, and starts over when the
    /// server sends the whole resource (200). Unusable resume data fails the task when it is resumed.
    open func downloadTask(withResumeData resumeData: Data) -> URLSessionDownloadTask {
        makeResumedDownloadTask(resumeData, completion: nil)
    }

    /// Like `downloadTask(withResumeData:)`, calling `completionHandler` with the file.
    open func downloadTask(withResumeData resumeData: Data,
                           completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDownloadTask {
        makeResumedDownloadTask(resumeData, completion: completionHandler)
    }

    // MARK: Task registry

    /// Makes a task with the next identifier and registers it until it completes; `announcing` tells the
    /// delegate (`didCreateTask`, URLSession+Lifecycle.swift).
    /// `identifier`: a re-attached background task keeps the one it had.
    final func register<Task: URLSessionTask>(announcing: Bool = true, identifier fixed: Int? = nil,
                                              _ make: (Int) -> Task) -> Task {
        let task = withRegistry { $0.register(fixed: fixed, make) }
        if announcing { announce(task) }
        return task
    }

    // MARK: Task bookkeeping

    /// Every task that has not completed yet (none once `invalidateAndCancel()` was called).
    open func getAllTasks(completionHandler: @escaping @Sendable ([URLSessionTask]) -> Void) {
        let tasks = currentTasks
        delegateQueue.addOperation { completionHandler(tasks) }
    }

    /// The tasks that have not completed yet, by kind (none once `invalidateAndCancel()` was called).
    open func getTasksWithCompletionHandler(
        _ completionHandler: @escaping @Sendable (
            [URLSessionDataTask], [URLSessionUploadTask], [URLSessionDownloadTask]) -> Void) {
        let tasks = currentTasks
        let uploads = tasks.compactMap { $0 as? URLSessionUploadTask }
        let data = tasks.compactMap { $0 as? URLSessionDataTask }.filter { !($0 is URLSessionUploadTask) }
        let downloads = tasks.compactMap { $0 as? URLSessionDownloadTask }
        delegateQueue.addOperation { completionHandler(data, uploads, downloads) }
    }

    /// FWNetworking addition: the tasks that have not completed yet, in the order they were made, read
    /// now and synchronously (what `getAllTasks` later hands its completion handler). Safe from any
    /// thread, the delegate queue included: it only takes the registry's lock. Empty once
    /// `invalidateAndCancel()` was called.
    public final var currentTasks: [URLSessionTask] {
        withRegistry { $0.current }
    }

    /// Whether the session was invalidated: tasks resumed from now on fail at once.
    final var isInvalidated: Bool {
        withRegistry { $0.invalidation == .invalidated }
    }

    /// `task` delivered its completion (delegate queue).
    final func taskDidComplete(_ task: URLSessionTask) {
        let finishInvalidation = withRegistry { $0.remove(task.taskIdentifier) }
        durable?.taskDidComplete(task, session: self)
        if finishInvalidation { completeInvalidation() }
    }

    // MARK: Flush and reset (URLSession+Lifecycle.swift)

    /// Makes later requests use new connections (idle ones close now, busy ones when their request ends)
    /// — cookies, credentials and cached responses are written as they change, so there is nothing else to
    /// write — then calls `completionHandler` on the delegate queue.
    open func flush(completionHandler: @escaping @Sendable () -> Void) {
        performFlush(completionHandler)
    }

    /// Empties the session's cookie storage, credential storage and URL cache and ends its connections as
    /// `flush` does, then calls `completionHandler` on the delegate queue.
    open func reset(completionHandler: @escaping @Sendable () -> Void) {
        performReset(completionHandler)
    }

    /// Whether this is the shared session (it also consults the registered URL protocol classes).
    final var isSharedSession: Bool { isShared }

    // MARK: Invalidation

    /// Lets running tasks finish, then invalidates the session: no new task may start, and the
    /// delegate's `didBecomeInvalidWithError(nil)` is the last message. Ignored on `shared`.
    open func finishTasksAndInvalidate() {
        guard !isShared else { return }
        if withRegistry({ $0.invalidate(cancelling: false) }).completeNow { completeInvalidation() }
    }

    /// Cancels every task, then invalidates the session. Ignored on `shared`.
    open func invalidateAndCancel() {
        guard !isShared else { return }
        let (tasks, finishNow) = withRegistry { $0.invalidate(cancelling: true) }
        tasks.forEach { $0.cancel() }
        if finishNow { completeInvalidation() }
    }

    private func completeInvalidation() {
        transport?.shutdown()
        transport?.bodyPieces.close()
        bodyBuffers.close()
        durable?.journal?.unlock() // another session (or process) may take the identifier now
        delegateQueue.addOperation { [self] in
            withRegistry { $0.completeInvalidation() }?.urlSession(self, didBecomeInvalidWithError: nil)
        }
    }

    /// The door to the session's changing state (`SessionRegistry`): a transition under the lock, whose
    /// result the caller acts on after it.
    private func withRegistry<Result>(_ transition: (inout SessionRegistry) -> Result) -> Result {
        registry.withLock(transition)
    }
}
