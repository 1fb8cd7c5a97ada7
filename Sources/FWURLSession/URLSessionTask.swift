import Foundation
import FWTransport

// MARK: - URLSessionTask

/// One load in a session: a request, its response and its lifecycle (`TaskStateMachine`).
///
/// A task drives its own loads (`start`, `send`, its resource timeout: `URLSessionTask+Sending.swift`) and
/// delivers its own events (`URLSessionTask+Delivery.swift`); the session keeps the registry, the
/// invalidation and the delegate router. What it does with the response is decided once, when it is made:
/// its `ResponseSink` (the data delegate, a collected body, a file, or an `AsyncBytes` sequence).
///
/// Thread-safe: all its mutable state is in one `LockedBox` (`core`, `TaskCore`): the `TaskStateMachine`
/// (lifecycle, deliveries, transport request, reading pause, counts), the transfer (the current `Hop`, what
/// the policies keep, metrics, the upload body) and the caller's properties; the task is the machine's
/// executor (`URLSessionTask+Executor.swift`). Everything else is immutable. The lock is a leaf: nothing else
/// is called while it is held.
open class URLSessionTask: NSObject, @unchecked Sendable { // mutable state: the one LockedBox `core`
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
    let core: LockedBox<TaskCore>

    /// The task's identifier, unique within its session.
    public let taskIdentifier: Int
    /// The request the task was created with.
    public let originalRequest: URLRequest?

    init(session: URLSession, identifier: Int, request: URLRequest?, sink: any ResponseSink,
         sinkState: SinkState = SinkState()) {
        self.session = session
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.sink = sink
        // A body stream is sent as it is read: its length is what the request says, else unknown.
        let streamed = request?.httpBodyStream != nil
        let expectedToSend = streamed
            ? request?.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) } ?? -1
            : Int64(request?.httpBody?.count ?? 0)
        // Made in place in the box (values made first and copied in retained and released all they hold).
        self.core = LockedBox(TaskCore(
            machine: TaskStateMachine(counts: TransferCounts(expectedToSend: expectedToSend)),
            transfer: TaskTransfer(currentRequest: request, upload: streamed ? .stream : nil),
            sink: sinkState, properties: TaskProperties(hearers: session.delegateHearers)))
        super.init()
    }

    // MARK: Public state

    /// The request being loaded now (differs from `originalRequest` after a redirect).
    public var currentRequest: URLRequest? { withTransfer { $0.currentRequest } }
    /// The response, once its head arrived.
    public var response: URLResponse? { read(\.machine.response) }
    /// The error the task completed with, if any.
    public var error: (any Error)? { read(\.machine.error) }
    /// The task's state.
    public var state: URLSessionTask.State { read(\.machine.publicState) }
    /// Body bytes sent so far.
    public var countOfBytesSent: Int64 { read(\.machine.counts.sent) }
    /// Body bytes received so far (as received on the wire).
    public var countOfBytesReceived: Int64 { read(\.machine.counts.received) }
    /// Body bytes the task expects to send.
    public var countOfBytesExpectedToSend: Int64 { read(\.machine.counts.expectedToSend) }
    /// Body bytes the task expects to receive: the response's Content-Length, or -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64 { read(\.machine.counts.expectedToReceive) }

    /// A description for the app's own use.
    public var taskDescription: String? {
        get { read(\.properties.taskDescription) }
        set { write(\.properties.taskDescription, newValue) }
    }

    /// The task's priority, 0.0 (lowest) to 1.0 (highest).
    public var priority: Float {
        get { read(\.properties.priority) }
        set { write(\.properties.priority, min(max(newValue, 0), 1)) }
    }

    /// The task's progress: body bytes received (for uploads, sent) of the expected total.
    public var progress: Progress {
        let (progress, made) = update { machine -> (Progress, Bool) in
            if let progress = machine.counts.progress { return (progress, false) }
            let progress = Progress(totalUnitCount: -1)
            machine.counts.progress = progress
            return (progress, true)
        }
        if made { updateProgress() }
        return progress
    }

    /// A delegate for this task only. Per message it is asked first when it implements that message's
    /// protocol; a message it does not implement goes on to the session's delegate (Apple's rule; see
    /// `URLSession+DelegateRouter.swift`).
    public var delegate: (any URLSessionTaskDelegate)? {
        get { read(\.properties.delegate) }
        set {
            let hearers = DelegateRouter.Hearers(newValue).union(session.delegateHearers)
            withCore { core in
                core.properties.delegate = newValue
                core.properties.hearers = hearers
            }
        }
    }

    // MARK: Scheduling hints

    /// The earliest time the task may begin loading: a task resumed before it waits, then asks its delegate
    /// (`willBeginDelayedRequest`) whether to go on. nil (the default) begins at once.
    open var earliestBeginDate: Date? {
        get { read(\.properties.earliestBeginDate) }
        set { write(\.properties.earliestBeginDate, newValue) }
    }

    /// An estimate of the body bytes the task will send, from the app (kept, not used on Linux);
    /// `NSURLSessionTransferSizeUnknown` by default.
    open var countOfBytesClientExpectsToSend: Int64 {
        get { read(\.properties.clientExpectsToSend) }
        set { write(\.properties.clientExpectsToSend, newValue) }
    }

    /// An estimate of the body bytes the task will receive, from the app (kept, not used on Linux);
    /// `NSURLSessionTransferSizeUnknown` by default.
    open var countOfBytesClientExpectsToReceive: Int64 {
        get { read(\.properties.clientExpectsToReceive) }
        set { write(\.properties.clientExpectsToReceive, newValue) }
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
        let hearsState = DelegateRouter.hearsStateChanges(task: self)
        apply { $0.resume(hearsState: hearsState) }
    }

    /// Pauses the task until `resume()` (suspensions nest): the connection stops reading its response,
    /// its request timeout stops, and no delegate message is delivered meanwhile. When that stops a
    /// running task, a state delegate hears `urlSession(_:taskDidSuspend:)` (FWNetworking addition).
    open func suspend() {
        let hearsState = DelegateRouter.hearsStateChanges(task: self)
        apply { $0.suspend(hearsState: hearsState) }
    }

    /// Cancels the task; it completes with `URLError.cancelled` (once). The transport may already have
    /// finished (or never started); the task completes with `cancelled` either way, and events still queued
    /// are dropped (see `handle`).
    open func cancel() {
        let failure = URLError(.cancelled, url: currentRequest?.url, description: "cancelled")
        apply { $0.cancel(failure: failure) }
    }

    /// Starts loading at the first `resume()`: the request (`URLSessionTask+Sending.swift`); a stream task
    /// connects instead.
    func startLoading() {
        start()
    }

    /// Takes over an event of the task it succeeds (`.becomeDownload`, `.becomeStream`): queued as it is by
    /// default.
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

// MARK: - The task's state

/// Everything the task's one lock guards: the machine, the transfer, what its sink keeps and the caller's
/// properties.
struct TaskCore {
    var machine: TaskStateMachine
    var transfer: TaskTransfer
    var sink: SinkState
    var properties: TaskProperties
}

/// The properties callers read and set from any thread; no rule ties them to the machine.
struct TaskProperties {
    var taskDescription: String?
    var priority: Float = URLSessionTask.defaultPriority
    var delegate: (any URLSessionTaskDelegate)?
    /// The protocols the task's delegate or its session's implement (`DelegateRouter.Hearers`).
    var hearers: DelegateRouter.Hearers

    // MARK: Scheduling hints (URLSessionTask+Scheduling.swift)

    var earliestBeginDate: Date?
    var clientExpectsToSend = NSURLSessionTransferSizeUnknown
    var clientExpectsToReceive = NSURLSessionTransferSizeUnknown
}

/// The loads a task makes: the current hop (`Hop`) and what the policies keep across hops (`TaskPolicyState`),
/// in one box (`Task/HopRoute.swift`), metrics, the upload body.
struct TaskTransfer {
    /// The request being sent now and what came of it, replaced whole at each hop, and what the policies
    /// (`HopPolicy`) keep across the task's hops, read and changed through `hop` and `policies`; nil while a
    /// walk holds them (`takeRoute()`). Only `HopRoute.swift` touches this and the two below.
    var route: HopRoute?
    /// The hop's request while a walk holds the route.
    var walkedRequest: URLRequest?
    /// Where changes made while a walk holds the route go (dropped when it is put back).
    var idleRoute: HopRoute?
    /// Why the task fails as soon as it is resumed (unusable resume data).
    var startFailure: URLError?
    /// When `timeoutIntervalForResource` runs out (the session's `taskDeadlines` watches it).
    var resourceDeadline: Deadline?
    /// When the task started, and the clock that dates transport times.
    var fetchStart: Date?
    var metricsClock: SessionClock?
    /// One entry per request sent (per redirect hop).
    var transactions: [TransactionRecord] = []
    /// The request body of upload tasks (and of data tasks with an `httpBodyStream`).
    var upload: UploadBody?
    /// The original request's `httpBodyStream` went out with a request (it cannot be read twice).
    var usedOriginalBodyStream = false
    /// Where the event trace stands (`URLSessionTask+Trace.swift`); inert unless the task is traced.
    var trace = TaskTraceState()

    init(currentRequest: URLRequest?, upload: UploadBody? = nil) {
        route = .make(request: currentRequest)
        self.upload = upload
    }
}
