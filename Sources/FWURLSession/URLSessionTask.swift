import Foundation
import FWTransport

// MARK: - URLSessionTask

/// One load in a session: a request, its response and its lifecycle (`TaskLifecycle`).
///
/// Thread-safe: every mutable stored value is inside `guarded` (a `LockedBox`); `session`, `behaviour`,
/// `taskIdentifier` and `originalRequest` are immutable.
open class URLSessionTask: NSObject, @unchecked Sendable { // mutable state: `guarded` (LockedBox)
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

    /// How the task reports its outcome.
    enum Behaviour {
        /// Through the session's (or the task's) delegate.
        case delegate
        /// Through a completion handler with the whole body; delegate data messages are skipped.
        case dataCompletion(@Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        /// Through a completion handler with the downloaded file; delegate download messages are skipped.
        case downloadCompletion(@Sendable (URL?, URLResponse?, (any Error)?) -> Void)
        /// Into an `AsyncBytes` sequence (`bytes(for:)`); the task delegate still gets task messages.
        case byteStream(AsyncBytesFeed)
    }

    /// Everything that changes, under one lock.
    struct Guarded {
        var lifecycle = TaskLifecycle()
        var requestID: RequestID?
        var currentRequest: URLRequest?
        var response: URLResponse?
        var error: (any Error)?
        var countOfBytesSent: Int64 = 0
        var countOfBytesReceived: Int64 = 0
        /// The response body is content-encoded: received bytes are counted before decoding.
        var bodyIsEncoded = false
        var countOfBytesExpectedToSend: Int64 = 0
        var countOfBytesExpectedToReceive: Int64 = -1
        var taskDescription: String?
        var priority: Float = URLSessionTask.defaultPriority
        var delegate: (any URLSessionTaskDelegate)?
        var deliveries = DeliveryQueue()
        /// The body collected for completion-handler and async tasks.
        var body = Data()
        /// When `timeoutIntervalForResource` runs out (the session's `resourceTimeouts` watches it).
        var resourceDeadline: DispatchTime?
        /// Why the task fails as soon as it is resumed (unusable resume data).
        var startFailure: URLError?
        /// When the task started, and the clock that dates transport times.
        var fetchStart: Date?
        var metricsClock: MetricsClock?
        /// One entry per request sent (per redirect hop).
        var transactions: [URLSessionTaskTransactionMetrics] = []
        /// The current hop: when its request was sent, and its response (3xx included).
        var hopStart: Date?
        var hopResponse: HTTPURLResponse?
        /// Redirects followed so far, and the request the current hop's 3xx is being followed with
        /// (the rest of that hop's events are dropped).
        var redirectCount = 0
        var followingRedirect: URLRequest?
        /// Download tasks: the file and the resume state.
        var download = DownloadState()
        /// A data task that answered `.becomeDownload`: the task that now gets its events.
        var becameDownload: URLSessionDownloadTask?
        /// The request body of upload tasks (and of data tasks with an `httpBodyStream`), and how much of it
        /// the delegate has heard was sent.
        var upload: UploadBody?
        var reportedBodyBytesSent: Int64 = 0
        /// The original request's `httpBodyStream` went out with a request (it cannot be read twice).
        var usedOriginalBodyStream = false
        /// `progress` counts bytes sent (upload tasks) rather than received.
        var tracksSending = false
        /// `progress`, made on first use.
        var progress: Progress?
        /// What was last asked of the transport's reading pause, for `requestID`.
        var readingPauseSent = false
    }

    /// The default priority.
    public static let defaultPriority: Float = 0.5
    /// A low priority.
    public static let lowPriority: Float = 0.25
    /// A high priority.
    public static let highPriority: Float = 0.75

    let session: URLSession
    let behaviour: Behaviour
    let guarded: LockedBox<Guarded>
    /// Orders the reading-pause requests sent to the transport (see `syncReadingPause`).
    let readingPauseOrder = NSLock()

    /// The task's identifier, unique within its session.
    public let taskIdentifier: Int
    /// The request the task was created with.
    public let originalRequest: URLRequest?

    init(session: URLSession, identifier: Int, request: URLRequest, behaviour: Behaviour) {
        self.session = session
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.behaviour = behaviour
        var initial = Guarded()
        initial.currentRequest = request
        initial.countOfBytesExpectedToSend = Int64(request.httpBody?.count ?? 0)
        if request.httpBodyStream != nil {
            initial.upload = .stream
            initial.countOfBytesExpectedToSend = request.value(forHTTPHeaderField: "Content-Length")
                .flatMap { Int64($0) } ?? -1
        }
        self.guarded = LockedBox(initial)
        super.init()
    }

    // MARK: Public state

    /// The request being loaded now (differs from `originalRequest` after a redirect).
    public var currentRequest: URLRequest? { guarded.withLock { $0.currentRequest } }
    /// The response, once its head arrived.
    public var response: URLResponse? { guarded.withLock { $0.response } }
    /// The error the task completed with, if any.
    public var error: (any Error)? { guarded.withLock { $0.error } }
    /// The task's state.
    public var state: URLSessionTask.State { guarded.withLock { $0.lifecycle.publicState } }
    /// Body bytes sent so far.
    public var countOfBytesSent: Int64 { guarded.withLock { $0.countOfBytesSent } }
    /// Body bytes received so far (as received on the wire).
    public var countOfBytesReceived: Int64 { guarded.withLock { $0.countOfBytesReceived } }
    /// Body bytes the task expects to send.
    public var countOfBytesExpectedToSend: Int64 { guarded.withLock { $0.countOfBytesExpectedToSend } }
    /// Body bytes the task expects to receive: the response's Content-Length, or -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64 { guarded.withLock { $0.countOfBytesExpectedToReceive } }

    /// A description for the app's own use.
    public var taskDescription: String? {
        get { guarded.withLock { $0.taskDescription } }
        set { guarded.withLock { $0.taskDescription = newValue } }
    }

    /// The task's priority, 0.0 (lowest) to 1.0 (highest).
    public var priority: Float {
        get { guarded.withLock { $0.priority } }
        set { guarded.withLock { $0.priority = min(max(newValue, 0), 1) } }
    }

    /// The task's progress: body bytes received (for uploads, sent) of the expected total.
    public var progress: Progress {
        let (progress, isNew, completed, total) = guarded.withLock { state -> (Progress, Bool, Int64, Int64) in
            if let progress = state.progress { return (progress, false, 0, 0) }
            let progress = Progress(totalUnitCount: -1)
            state.progress = progress
            let (completed, total) = state.progressCounts
            return (progress, true, completed, total)
        }
        if isNew {
            progress.totalUnitCount = total
            progress.completedUnitCount = completed
        }
        return progress
    }

    /// A delegate for this task only; it receives the task's messages instead of the session delegate.
    public var delegate: (any URLSessionTaskDelegate)? {
        get { guarded.withLock { $0.delegate } }
        set { guarded.withLock { $0.delegate = newValue } }
    }

    // MARK: Control

    /// Starts the task, or resumes a suspended one.
    open func resume() {
        let action = guarded.withLock { $0.lifecycle.resume() }
        switch action {
        case .start:
            session.start(self)
        case .resumeDelivery:
            syncReadingPause()
            release(.suspended)
        default:
            break
        }
    }

    /// Pauses the task until `resume()` (suspensions nest): the connection stops reading its response,
    /// its request timeout stops, and no delegate message is delivered meanwhile.
    open func suspend() {
        let paused = guarded.withLock { state -> Bool in
            guard state.lifecycle.suspend() == .pauseDelivery else { return false }
            state.deliveries.holds.insert(.suspended)
            return true
        }
        if paused { syncReadingPause() }
    }

    /// Cancels the task; it completes with `URLError.cancelled` (once).
    open func cancel() {
        let (action, requestID) = guarded.withLock { state in
            state.deliveries.holds.remove(.suspended)
            return (state.lifecycle.cancel(), state.requestID)
        }
        guard action == .cancel else { return }
        if let requestID { session.transport?.cancel(requestID) }
        // The transport may already have finished (or never started); the task completes with
        // `cancelled` either way, and events still queued are dropped (see `handle`).
        enqueue(.fail(URLError(.cancelled, url: currentRequest?.url, description: "cancelled")))
    }

    /// `timeoutIntervalForResource` passed: the task ends with `timedOut`, wherever it is.
    final func resourceTimeoutElapsed() {
        let requestID = guarded.withLock { $0.requestID }
        if let requestID { session.transport?.cancel(requestID, error: .timedOut("the resource timeout elapsed")) }
        enqueue(.fail(URLError(.timedOut, url: currentRequest?.url, description: "the resource timeout elapsed")))
    }

    // MARK: Description

    open override var description: String {
        "<\(type(of: self)): \(taskIdentifier)> { \(originalRequest?.url?.absoluteString ?? "(no URL)") }"
    }
}

// MARK: - URLSessionDataTask

/// A task that loads a response body into memory (or hands it to the delegate piece by piece).
open class URLSessionDataTask: URLSessionTask, @unchecked Sendable {} // state: URLSessionTask.guarded

// MARK: - URLSessionUploadTask

/// A data task whose request body comes from data, a file or a stream given when it was made.
open class URLSessionUploadTask: URLSessionDataTask, @unchecked Sendable {} // state: URLSessionTask.guarded
