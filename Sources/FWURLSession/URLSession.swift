import Foundation
import FWTLS
import FWTransport

// MARK: - URLSession

/// Coordinates a group of tasks that share a configuration, a connection pool and a delegate.
///
/// Source-compatible with FoundationNetworking's `URLSession`, without libcurl: requests run on
/// FWNetworking's own HTTP/1.1 engine. Thread-safe: the task registry and the invalidation state are
/// in `registry` (a `Locked`); everything else is immutable. Internal methods declared in the class
/// body are `final`: they must not take vtable slots, or adding one shifts the slots of the `open`
/// methods that clients compiled against.
open class URLSession: NSObject, @unchecked Sendable { // mutable state: `registry` (Locked)
    private enum Invalidation {
        case active
        /// `finishTasksAndInvalidate()` or `invalidateAndCancel()` was called; waiting for tasks.
        case invalidating
        /// `didBecomeInvalidWithError` was sent.
        case invalidated
    }

    private struct Registry {
        var tasks: [Int: URLSessionTask] = [:]
        var nextIdentifier = 1
        var invalidation = Invalidation.active
        var delegate: (any URLSessionDelegate)?
    }

    private let registry: Locked<Registry>
    private let isShared: Bool
    /// The engine; nil only when the process could not start its event loops.
    let transport: HTTPTransport?

    /// A copy of the configuration the session was created with.
    public let configuration: URLSessionConfiguration
    /// The queue delegate methods and completion handlers run on.
    public let delegateQueue: OperationQueue
    /// A description for the app's own use.
    public var sessionDescription: String? {
        get { descriptionBox.withLock { $0 } }
        set { descriptionBox.withLock { $0 = newValue } }
    }
    private let descriptionBox = Locked<String?>(nil)

    /// The session's delegate; released once the session is invalidated.
    public var delegate: (any URLSessionDelegate)? { registry.withLock { $0.delegate } }

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

    private init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
                 delegateQueue queue: OperationQueue?, isShared: Bool) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        self.configuration = configuration
        if let queue {
            self.delegateQueue = queue
        } else {
            let serial = OperationQueue()
            serial.maxConcurrentOperationCount = 1
            serial.name = "FWURLSession delegate queue"
            self.delegateQueue = serial
        }
        self.isShared = isShared
        self.registry = Locked(Registry(delegate: delegate))
        let tls = TLSConfiguration(
            minimumVersion: configuration.tlsMinimumSupportedProtocolVersion.tlsVersion ?? .v1_2,
            maximumVersion: configuration.tlsMaximumSupportedProtocolVersion.tlsVersion ?? .v1_3,
            trustRoots: configuration.tlsTrustRoots)
        let reference = SessionReference()
        self.transport = HTTPTransport(sharedLoopsWith: HTTPTransport.Configuration(
            maxConnectionsPerHost: configuration.httpMaximumConnectionsPerHost,
            connectTimeout: .seconds(configuration.timeoutIntervalForRequest),
            limits: configuration.httpResponseLimits,
            tls: tls,
            serverTrustHandler: Self.serverTrustHandler(reference)
        ))
        super.init()
        reference.session = self
    }

    // MARK: Data tasks

    /// Creates a data task whose messages go to the delegate.
    open func dataTask(with request: URLRequest) -> URLSessionDataTask {
        makeDataTask(request, behaviour: .delegate)
    }

    /// Creates a data task for a GET of `url`, whose messages go to the delegate.
    open func dataTask(with url: URL) -> URLSessionDataTask {
        makeDataTask(URLRequest(url: url), behaviour: .delegate)
    }

    /// Creates a data task that calls `completionHandler` on the delegate queue with the whole body.
    open func dataTask(with request: URLRequest,
                       completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDataTask {
        makeDataTask(request, behaviour: .dataCompletion(completionHandler))
    }

    /// Creates a data task for a GET of `url` that calls `completionHandler` with the whole body.
    open func dataTask(with url: URL,
                       completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        -> URLSessionDataTask {
        makeDataTask(URLRequest(url: url), behaviour: .dataCompletion(completionHandler))
    }

    private func makeDataTask(_ request: URLRequest, behaviour: URLSessionTask.Behaviour) -> URLSessionDataTask {
        registry.withLock { registry in
            let identifier = registry.nextIdentifier
            registry.nextIdentifier += 1
            let task = URLSessionDataTask(session: self, identifier: identifier, request: request,
                                          behaviour: behaviour)
            registry.tasks[identifier] = task
            return task
        }
    }

    // MARK: Task bookkeeping

    /// Every task that has not completed yet.
    open func getAllTasks(completionHandler: @escaping @Sendable ([URLSessionTask]) -> Void) {
        let tasks = registry.withLock { registry in
            registry.tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier }
        }
        delegateQueue.addOperation { completionHandler(tasks) }
    }

    /// Starts `task` (its first `resume()`): the resource timeout starts, then the first request.
    final func start(_ task: URLSessionTask) {
        let invalidated = registry.withLock { $0.invalidation == .invalidated }
        guard !invalidated, let request = task.currentRequest else {
            task.enqueue(.fail(URLError(.cancelled, url: task.currentRequest?.url,
                                        description: "the session was invalidated")))
            return
        }
        let resourceTimer = DispatchWorkItem { [weak task] in task?.resourceTimeoutElapsed() }
        task.guarded.withLock { state in
            state.metricsClock = MetricsClock()
            state.fetchStart = Date()
            state.resourceTimer = URLSessionTask.ResourceTimer(item: resourceTimer)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + configuration.timeoutIntervalForResource,
                                          execute: resourceTimer)
        send(task, request)
    }

    /// Sends one request of `task` (the first, or the next after a redirect).
    final func send(_ task: URLSessionTask, _ request: URLRequest) {
        guard let transport else {
            task.enqueue(.fail(URLError(.unknown, url: request.url,
                                        description: "FWURLSession could not start its event loops")))
            return
        }
        let transportRequest: TransportRequest
        do {
            transportRequest = try TransportRequest(request, configuration: configuration, priority: task.priority,
                                                    tracing: task.wantsTrace)
        } catch {
            task.enqueue(.fail(error))
            return
        }
        task.guarded.withLock { $0.hopStart = Date() }
        let id = transport.execute(transportRequest, delegate: task)
        let cancelled = task.guarded.withLock { state -> Bool in
            state.requestID = id
            return state.lifecycle.publicState == .canceling
        }
        if cancelled { transport.cancel(id) }
    }

    /// `task` delivered its completion (delegate queue).
    final func taskDidComplete(_ task: URLSessionTask) {
        let finishInvalidation = registry.withLock { registry -> Bool in
            registry.tasks[task.taskIdentifier] = nil
            return registry.invalidation == .invalidating && registry.tasks.isEmpty
        }
        if finishInvalidation { completeInvalidation() }
    }

    // MARK: Invalidation

    /// Lets running tasks finish, then invalidates the session: no new task may start, and the
    /// delegate's `didBecomeInvalidWithError(nil)` is the last message. Ignored on `shared`.
    open func finishTasksAndInvalidate() {
        guard !isShared else { return }
        let finishNow = registry.withLock { registry -> Bool in
            guard registry.invalidation == .active else { return false }
            registry.invalidation = .invalidating
            return registry.tasks.isEmpty
        }
        if finishNow { completeInvalidation() }
    }

    /// Cancels every task, then invalidates the session. Ignored on `shared`.
    open func invalidateAndCancel() {
        guard !isShared else { return }
        let (tasks, finishNow) = registry.withLock { registry -> ([URLSessionTask], Bool) in
            guard registry.invalidation == .active else { return ([], false) }
            registry.invalidation = .invalidating
            return (Array(registry.tasks.values), registry.tasks.isEmpty)
        }
        tasks.forEach { $0.cancel() }
        if finishNow { completeInvalidation() }
    }

    private func completeInvalidation() {
        transport?.shutdown()
        delegateQueue.addOperation { [self] in
            let delegate = registry.withLock { registry -> (any URLSessionDelegate)? in
                registry.invalidation = .invalidated
                defer { registry.delegate = nil }
                return registry.delegate
            }
            delegate?.urlSession(self, didBecomeInvalidWithError: nil)
        }
    }
}
