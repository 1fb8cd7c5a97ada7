import Foundation
import FWTransport

// MARK: - URLSessionTask

/// One load in a session: a request, its response and its lifecycle (`TaskLifecycle`).
///
/// A task drives its own loads (`start`, `send`, its resource timeout: `URLSessionTask+Sending.swift`) and
/// delivers its own events (`URLSessionTask+Delivery.swift`); the session keeps the registry, the
/// invalidation and the delegate router. What it does with the response is decided once, when it is made:
/// its `ResponseSink` (the data delegate, a collected body, a file, or an `AsyncBytes` sequence).
///
/// Thread-safe: the mutable state is split by concern into three `LockedBox`es — `control` (lifecycle,
/// deliveries, the public properties), `transfer` (the request being loaded, hops, metrics, the upload body)
/// and `counts` (byte counts and progress); everything else is immutable. No two boxes are ever held at once.
open class URLSessionTask: NSObject, @unchecked Sendable { // mutable state: three LockedBoxes (see above)
    /// The state of a task.
    public enum State: Int, Sendable {
        /// Running, delivering messages.
        case running = 0
        /// Created but not resumed, or suspended.
        case suspended = 1
        /// Cancelled; the completion has not been delivered yet.
        case canceling = 2
        /// Finished; the completion was delivered or is on its way.
        case completed = 3
    }

    /// The default priority.
    public static let defaultPriority: Float = 0.5
    /// A low priority.
    public static let lowPriority: Float = 0.25
    /// A high priority.
    public static let highPriority: Float = 0.75

    let session: URLSession
    let sink: any ResponseSink
    let control: LockedBox<TaskControl>
    let transfer: LockedBox<TaskTransfer>
    let counts: LockedBox<TaskCounts>

    /// The task's identifier, unique within its session.
    public let taskIdentifier: Int
    /// The request the task was created with.
    public let originalRequest: URLRequest?

    init(session: URLSession, identifier: Int, request: URLRequest?, sink: any ResponseSink) {
        self.session = session
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.sink = sink
        var transfer = TaskTransfer(currentRequest: request)
        var counts = TaskCounts(expectedToSend: Int64(request?.httpBody?.count ?? 0))
        if let request, request.httpBodyStream != nil {
            transfer.upload = .stream
            counts.expectedToSend = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) } ?? -1
        }
        self.control = LockedBox(TaskControl())
        self.transfer = LockedBox(transfer)
        self.counts = LockedBox(counts)
        super.init()
    }

    // MARK: Public state

    /// The request being loaded now (differs from `originalRequest` after a redirect).
    public var currentRequest: URLRequest? { transfer.withLock { $0.currentRequest } }
    /// The response, once its head arrived.
    public var response: URLResponse? { control.withLock { $0.response } }
    /// The error the task completed with, if any.
    public var error: (any Error)? { control.withLock { $0.error } }
    /// The task's state.
    public var state: URLSessionTask.State { control.withLock { $0.lifecycle.publicState } }
    /// Body bytes sent so far.
    public var countOfBytesSent: Int64 { counts.withLock { $0.sent } }
    /// Body bytes received so far (as received on the wire).
    public var countOfBytesReceived: Int64 { counts.withLock { $0.received } }
    /// Body bytes the task expects to send.
    public var countOfBytesExpectedToSend: Int64 { counts.withLock { $0.expectedToSend } }
    /// Body bytes the task expects to receive: the response's Content-Length, or -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64 { counts.withLock { $0.expectedToReceive } }

    /// A description for the app's own use.
    public var taskDescription: String? {
        get { control.withLock { $0.taskDescription } }
        set { control.withLock { $0.taskDescription = newValue } }
    }

    /// The task's priority, 0.0 (lowest) to 1.0 (highest).
    public var priority: Float {
        get { control.withLock { $0.priority } }
        set { control.withLock { $0.priority = min(max(newValue, 0), 1) } }
    }

    /// The task's progress: body bytes received (for uploads, sent) of the expected total.
    public var progress: Progress {
        let (progress, made) = counts.withLock { counts -> (Progress, Bool) in
            if let progress = counts.progress { return (progress, false) }
            let progress = Progress(totalUnitCount: -1)
            counts.progress = progress
            return (progress, true)
        }
        if made { updateProgress() }
        return progress
    }

    /// A delegate for this task only. Per message it is asked first when it implements that message's
    /// protocol; a message it does not implement goes on to the session's delegate (Apple's rule; see
    /// `URLSession+DelegateRouter.swift`).
    public var delegate: (any URLSessionTaskDelegate)? {
        get { control.withLock { $0.delegate } }
        set { control.withLock { $0.delegate = newValue } }
    }

    // MARK: Scheduling hints

    /// The earliest time the task may begin loading: a task resumed before it waits, then asks its delegate
    /// (`willBeginDelayedRequest`) whether to go on. nil (the default) begins at once.
    open var earliestBeginDate: Date? {
        get { control.withLock { $0.earliestBeginDate } }
        set { control.withLock { $0.earliestBeginDate = newValue } }
    }

    /// An estimate of the body bytes the task will send, from the app (kept, not used on Linux);
    /// `NSURLSessionTransferSizeUnknown` by default.
    open var countOfBytesClientExpectsToSend: Int64 {
        get { control.withLock { $0.clientExpectsToSend } }
        set { control.withLock { $0.clientExpectsToSend = newValue } }
    }

    /// An estimate of the body bytes the task will receive, from the app (kept, not used on Linux);
    /// `NSURLSessionTransferSizeUnknown` by default.
    open var countOfBytesClientExpectsToReceive: Int64 {
        get { control.withLock { $0.clientExpectsToReceive } }
        set { control.withLock { $0.clientExpectsToReceive = newValue } }
    }

    // MARK: NSCopying (the conformance: URLSessionTask+Scheduling.swift)

    /// The task itself: a task is an identity, not a value (as in FoundationNetworking).
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// The task itself (see `copy(with:)`).
    open override func copy() -> Any {
        copy(with: nil)
    }

    // MARK: Control

    /// Starts the task, or resumes a suspended one; does nothing once the session is invalidated. When
    /// that makes it run, a state delegate hears `urlSession(_:taskDidResume:)` (FWNetworking addition).
    open func resume() {
        guard !session.isInvalidated else { return }
        let action = control.withLock { $0.lifecycle.resume() }
        switch action {
        case .start:
            if DelegateRouter.hearsStateChanges(task: self) { enqueue(.resumed) }
            start()
        case .resumeDelivery:
            if DelegateRouter.hearsStateChanges(task: self) { enqueue(.resumed) }
            syncReadingPause()
            release(.suspended)
        default:
            break
        }
    }

    /// Pauses the task until `resume()` (suspensions nest): the connection stops reading its response,
    /// its request timeout stops, and no delegate message is delivered meanwhile. When that stops a
    /// running task, a state delegate hears `urlSession(_:taskDidSuspend:)` (FWNetworking addition).
    open func suspend() {
        let paused = control.withLock { state -> Bool in
            guard state.lifecycle.suspend() == .pauseDelivery else { return false }
            state.deliveries.holds.insert(.suspended)
            return true
        }
        guard paused else { return }
        syncReadingPause()
        if DelegateRouter.hearsStateChanges(task: self) { enqueue(.suspended) }
    }

    /// Cancels the task; it completes with `URLError.cancelled` (once).
    open func cancel() {
        let (action, requestID) = control.withLock { state in
            state.deliveries.holds.remove(.suspended)
            return (state.lifecycle.cancel(), state.requestID)
        }
        guard action == .cancel else { return }
        if let requestID { session.transport?.cancel(requestID) }
        stopProtocolLoad()
        // The transport may already have finished (or never started); the task completes with
        // `cancelled` either way, and events still queued are dropped (see `handle`).
        enqueue(.fail(URLError(.cancelled, url: currentRequest?.url, description: "cancelled")))
    }

    /// Takes over an event of the task it succeeds (`successor`): queued as it is by default.
    func adopt(_ event: TaskEvent) {
        enqueue(event)
    }

    // MARK: Description

    open override var description: String {
        "<\(type(of: self)): \(taskIdentifier)> { \(originalRequest?.url?.absoluteString ?? "(no URL)") }"
    }
}

// MARK: - URLSessionDataTask

/// A task that loads a response body into memory (or hands it to the delegate piece by piece).
open class URLSessionDataTask: URLSessionTask, @unchecked Sendable {} // state: URLSessionTask's boxes

// MARK: - URLSessionUploadTask

/// A data task whose request body comes from data, a file or a stream given when it was made.
open class URLSessionUploadTask: URLSessionDataTask, @unchecked Sendable {} // state: URLSessionTask's boxes

// MARK: - The task's state, by concern

/// A task's lifecycle, its undelivered events, and the properties callers read and set from any thread.
struct TaskControl {
    var lifecycle = TaskLifecycle()
    var deliveries = DeliveryQueue()
    /// The transport request of the current hop, while it runs.
    var requestID: RequestID?
    /// Numbers the reading-pause decisions sent to the transport, which keeps only the latest.
    var pauseVersion: UInt64 = 0
    var response: URLResponse?
    var error: (any Error)?
    var taskDescription: String?
    var priority: Float = URLSessionTask.defaultPriority
    var delegate: (any URLSessionTaskDelegate)?
    /// A data task that answered `.becomeDownload` or `.becomeStream`: the task that now gets its events.
    var successor: URLSessionTask?

    // MARK: Scheduling hints (URLSessionTask+Scheduling.swift)

    var earliestBeginDate: Date?
    var clientExpectsToSend = NSURLSessionTransferSizeUnknown
    var clientExpectsToReceive = NSURLSessionTransferSizeUnknown

    /// Whether the task is cancelled or finished: nothing but its completion is delivered any more.
    var isEnding: Bool { [.canceling, .completed].contains(lifecycle.publicState) }
}

/// The loads a task makes: the request of the current hop, redirects followed, metrics, the upload body.
struct TaskTransfer {
    var currentRequest: URLRequest?
    /// Why the task fails as soon as it is resumed (unusable resume data).
    var startFailure: URLError?
    /// When `timeoutIntervalForResource` runs out (the session's `taskDeadlines` watches it).
    var resourceDeadline: Deadline?
    /// When the task started, and the clock that dates transport times.
    var fetchStart: Date?
    var metricsClock: SessionClock?
    /// One entry per request sent (per redirect hop).
    var transactions: [URLSessionTaskTransactionMetrics] = []
    /// The current hop: when its request was sent, and its response (3xx included).
    var hopStart: Date?
    var hopResponse: HTTPURLResponse?
    /// Redirects followed so far.
    var redirectCount = 0
    /// The request the current hop is being replaced with (a redirect followed, a challenge answered): the
    /// rest of the hop's events are dropped and the request is sent when the hop ends.
    var nextHop: NextHop?
    /// The current hop's dealings with the URL cache.
    var cache = TaskCacheState()
    /// The challenge the task answered, while it is answering one.
    var authentication: TaskAuthentication?
    /// The proxy challenge the task answered, while it is answering one (`URLSessionTask+ProxyAuthentication`).
    var proxyAuthentication: TaskAuthentication?
    /// The proxy the current hop went through, as the transport was given it.
    var hopProxy: ProxyServer?
    /// The answer to a proxy's challenge, given to the transport with that proxy for the task's requests.
    var proxyAuthorization: ProxyAuthorization?
    /// The request body of upload tasks (and of data tasks with an `httpBodyStream`).
    var upload: UploadBody?
    /// The original request's `httpBodyStream` went out with a request (it cannot be read twice).
    var usedOriginalBodyStream = false
    /// Waiting for a route after a connection failed for want of one (`URLSessionTask+Connectivity.swift`).
    var connectivity = ConnectivityWait()

    // MARK: URL protocols (URLSessionTask+Protocol.swift)

    /// The URL protocol loading the current hop, when one took it.
    var protocolLoad: ProtocolLoad?
}

/// A request that replaces the current hop, and why.
struct NextHop {
    enum Reason {
        /// A 3xx the task follows (it counts towards `RedirectPolicy.maxRedirects`).
        case redirect
        /// A 401 answered with a credential.
        case authentication
        /// A 304 that did not match the stored response: the request goes again, without conditions.
        case unconditional
    }

    var request: URLRequest
    var reason: Reason
}

/// A task's byte counts and the `Progress` made from them.
struct TaskCounts {
    var sent: Int64 = 0
    var received: Int64 = 0
    var expectedToSend: Int64 = 0
    var expectedToReceive: Int64 = -1
    /// How much of the current request's body the delegate has heard was sent.
    var reportedBodyBytesSent: Int64 = 0
    /// The response body is content-encoded: received bytes are counted before decoding.
    var bodyIsEncoded = false
    /// Bytes of an encoded body after decoding (checked against `HTTPLimits.maxDecompressionRatio`).
    var decoded: Int64 = 0
    /// `progress` counts bytes sent (upload tasks) rather than received.
    var tracksSending = false
    /// The task completed successfully (an unknown total then settles to what was transferred).
    var succeeded = false
    /// `progress`, made on first use.
    var progress: Progress?
}
