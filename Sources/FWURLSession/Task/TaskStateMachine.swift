import Foundation
import FWTransport

// MARK: - TaskStateMachine
//
// A task's lifecycle, its undelivered events, the transport request it runs and the reading pause it asked
// for, as one value type. The task (`URLSessionTask+Executor.swift`) feeds it one input at a time under its
// one lock and runs the `TaskActions` the input returns after the lock; the machine itself calls nothing,
// so every row of its behaviour is a table test (`TaskStateMachineTests`) with no socket, server or clock.
//
//   created(n) ──resume, n = 1──▶ running(0) ◀──resume, n = 1── running(n ≥ 1)   suspend: n + 1 (nests);
//       │                           │  │                             ▲              delivery held, reading
//       │                           │  └────────suspend──────────────┘              paused while n ≥ 1
//       │ cancel                    │ cancel              finish
//       ▼                           ▼                        ▼
//   canceling ─────────finish──────────────────────────▶ completed
//                                   │ handOver (.becomeDownload, .becomeStream)
//                                   ▼
//                          handedOver(successor): the machine's value moved to the successor's machine
//
// `suspend()` and `resume()` nest; the first time the count reaches zero the request starts (`start`), later
// resumes only let delivery go on. `cancel()` stops the transport request (when there is one: a request
// accepted later is cancelled as soon as it is, `accepted`), queues the `cancelled` failure and lifts the
// suspension; whatever error races it, the task completes with `cancelled`. Only the first `finish` completes.
//
// Deliveries: events queue in `DeliveryQueue` (state messages in a lane of their own) and one drain at a time
// takes them (`nextDelivery`). A task that was handed over forwards its events to its successor; a task that
// is ending delivers nothing but its completion (the drain drops the rest). Reading pause: the transport reads
// the response while the task runs unsuspended and its delegate keeps up (`DeliveryQueue.isBacklogged`); each
// change goes out as a versioned decision, so a late one never undoes a newer one.

struct TaskStateMachine {
    enum State {
        /// Made, not started; `suspensions` counts the `suspend()` calls not resumed yet, plus one.
        case created(suspensions: Int)
        /// Started; delivery is held while `suspensions` > 0.
        case running(suspensions: Int)
        /// `cancel()` was called; the completion is on its way.
        case canceling
        /// The completion was delivered (or is being delivered).
        case completed
        /// `.becomeDownload` or `.becomeStream`: `successor` has this task's transfer and gets its events.
        case handedOver(to: URLSessionTask)
    }

    /// What the drain does with the next event.
    enum Delivery {
        /// Handle `event` as this task's; `ending`: cancelled or completed, so only the completion goes out.
        case deliver(TaskEvent, ending: Bool)
        /// The event belongs to the task that took this one's transfer over.
        case forward(TaskEvent, to: URLSessionTask)
    }

    private(set) var state = State.created(suspensions: 1)
    private(set) var deliveries = DeliveryQueue()
    /// The transport request of the current hop, once the transport accepted it.
    private(set) var requestID: RequestID?
    /// Numbers the reading-pause decisions sent to the transport, which keeps only the latest.
    private var pauseVersion: UInt64 = 0
    /// The response the task's sink got, then the error it completed with.
    private(set) var response: URLResponse?
    private(set) var error: (any Error)?
    /// Byte counts and `progress`.
    var counts: TransferCounts

    init(counts: TransferCounts = TransferCounts()) {
        self.counts = counts
    }

    // MARK: Derived state

    /// The public state.
    var publicState: URLSessionTask.State {
        switch state {
        case .created: .suspended
        case .running(let suspensions): suspensions == 0 ? .running : .suspended
        case .canceling: .canceling
        case .completed, .handedOver: .completed
        }
    }

    /// Cancelled or finished: nothing but the completion is delivered any more.
    var isEnding: Bool {
        switch state {
        case .canceling, .completed, .handedOver: true
        case .created, .running: false
        }
    }

    var isSuspended: Bool {
        if case .running(let suspensions) = state { return suspensions > 0 }
        return false
    }

    // MARK: Caller's inputs (any thread)

    /// `resume()`; `hearsState`: a state delegate hears `taskDidResume`.
    mutating func resume(hearsState: Bool) -> TaskActions {
        var actions = TaskActions()
        switch state {
        case .created(let suspensions) where suspensions > 1:
            state = .created(suspensions: suspensions - 1)
        case .created:
            state = .running(suspensions: 0)
            if hearsState { append(.resumed, into: &actions) }
            actions.start = true
        case .running(let suspensions) where suspensions > 0:
            state = .running(suspensions: suspensions - 1)
            guard suspensions == 1 else { break }
            if hearsState { append(.resumed, into: &actions) }
            deliveries.holds.remove(.suspended)
            actions.readingPause = pauseDecision()
            actions.scheduleDrain = deliveries.claimDrain() || actions.scheduleDrain
        case .running, .canceling, .completed, .handedOver:
            break
        }
        return actions
    }

    /// `suspend()`; `hearsState`: a state delegate hears `taskDidSuspend`.
    mutating func suspend(hearsState: Bool) -> TaskActions {
        var actions = TaskActions()
        switch state {
        case .created(let suspensions):
            state = .created(suspensions: suspensions + 1)
        case .running(let suspensions):
            state = .running(suspensions: suspensions + 1)
            guard suspensions == 0 else { break }
            deliveries.holds.insert(.suspended)
            actions.readingPause = pauseDecision()
            if hearsState { append(.suspended, into: &actions) }
        case .canceling, .completed, .handedOver:
            break
        }
        return actions
    }

    /// `cancel()`: the task completes with `failure` (`cancelled`), even when suspended or not started.
    mutating func cancel(failure: URLError) -> TaskActions {
        var actions = TaskActions()
        switch state {
        case .created, .running:
            state = .canceling
            deliveries.holds.remove(.suspended)
            actions.cancelRequest = requestID
            actions.stopProtocolLoad = true
            append(.fail(failure), into: &actions)
        case .canceling, .completed, .handedOver:
            break
        }
        return actions
    }

    // MARK: The transport's inputs

    /// A hop's request is about to go to the transport: until the transport accepts it (`accepted`, or its
    /// first events, `received`) the task has no request to cancel or pause, and the delegate has heard of
    /// none of its body bytes.
    mutating func transmitting() {
        requestID = nil
        counts.reportedBodyBytesSent = 0
    }

    /// The transport accepted the current hop's request as `id`: cancelled at once when the task was cancelled
    /// or ended first (a cancel, a timeout or a local failure that raced the send); told to hold its response
    /// when the task is suspended or behind.
    mutating func accepted(_ id: RequestID) -> TaskActions {
        requestID = id
        var actions = TaskActions()
        switch state {
        case .canceling, .completed: actions.cancelRequest = id
        case .created, .running, .handedOver: actions.readingPause = pauseDecision(onlyIfPaused: true)
        }
        return actions
    }

    /// The transport's `event` for request `id`: queued for the drain. Events can come before `execute`
    /// returned the id to the task (a fast response on another thread): the first ones make it known, so that
    /// a delegate that answers the response at once (`.becomeStream`, a cancel) finds the request.
    mutating func received(_ event: consuming TransportEvent, from id: RequestID) -> TaskActions {
        noteRequest(id)
        return enqueue(.transport(event))
    }

    /// The transport's `events` for request `id`, moved out of the list (left empty, its storage kept for the
    /// connection): as `received(_:from:)` for one.
    mutating func received(_ events: inout [TransportEvent], from id: RequestID) -> TaskActions {
        noteRequest(id)
        var actions = TaskActions()
        events.takeEach { append(.transport($0), into: &actions) }
        return actions
    }

    /// A running task's transport request is `id` from its first event on (what `cancel` names to the transport).
    private mutating func noteRequest(_ id: RequestID) {
        if requestID == nil, case .running = state { requestID = id }
    }

    /// Queues `event` for the drain.
    mutating func enqueue(_ event: consuming TaskEvent) -> TaskActions {
        var actions = TaskActions()
        append(event, into: &actions)
        return actions
    }

    // MARK: Delivery (delegate queue)

    /// Holds delivery until `release(hold)`: a question to the delegate is open.
    mutating func hold(_ hold: DeliveryQueue.Hold) {
        deliveries.holds.insert(hold)
    }

    /// Lifts `hold`.
    mutating func release(_ hold: DeliveryQueue.Hold) -> TaskActions {
        deliveries.holds.remove(hold)
        var actions = TaskActions()
        actions.scheduleDrain = deliveries.claimDrain()
        return actions
    }

    /// The drain's next event, nil when it stops (the queue is empty or held); and the reading pause to send
    /// when the backlog fell under its low-water mark.
    mutating func nextDelivery() -> (Delivery?, TaskActions) {
        var actions = TaskActions()
        let (next, backlogChanged) = deliveries.nextForDrain()
        if backlogChanged { actions.readingPause = pauseDecision() }
        // Moved out of its optional (`consume`): bound plainly, the event was copied out and both destroyed.
        guard let event = consume next else { return (nil, actions) }
        if event.isStateMessage { return (.deliver(event, ending: false), actions) }
        if case .handedOver(let successor) = state { return (.forward(event, to: successor), actions) }
        return (.deliver(event, ending: isEnding), actions)
    }

    /// The sink got `response`.
    mutating func responseDelivered(_ response: URLResponse) {
        self.response = response
        counts.expectedToReceive = response.expectedContentLength
    }

    /// The task ends with `error` (nil: success), once: true when this call completes it, with the error it
    /// completes with (`cancelled`, `cancellation` built by the caller, once `cancel()` was called, whatever
    /// else raced it).
    mutating func finish(error: (any Error)?, cancellation: @autoclosure () -> URLError) -> (Bool, (any Error)?) {
        switch state {
        case .running, .canceling:
            let cancelled = if case .canceling = state { true } else { false }
            state = .completed
            guard cancelled, (error as? URLError)?.code != .cancelled else { return (true, error) }
            return (true, cancellation())
        case .completed, .handedOver:
            return (false, nil)
        case .created:
            preconditionFailure("finish() in state \(state)")
        }
    }

    /// The error the task completed with, as its sink settled it.
    mutating func completed(with error: (any Error)?) {
        self.error = error
        counts.succeeded = error == nil
    }

    // MARK: Hand-over

    /// `.becomeDownload` or `.becomeStream`: this task ends without a completion and `successor` gets its
    /// events; the returned value is the successor's machine (running, with the response, and for a download
    /// the transport request, its pause and the counts).
    mutating func handOver(to successor: URLSessionTask, keepingTransfer: Bool) -> TaskStateMachine {
        var moved = TaskStateMachine()
        moved.state = .running(suspensions: 0)
        moved.response = response
        if keepingTransfer {
            moved.requestID = requestID
            moved.pauseVersion = pauseVersion
            moved.counts = counts
            moved.counts.progress = nil
        }
        state = .handedOver(to: successor)
        return moved
    }

    // MARK: Internals

    /// Queues `event`; schedules the drain when this is the one to start it, and sends the reading pause when
    /// the backlog passed its high-water mark.
    private mutating func append(_ event: consuming TaskEvent, into actions: inout TaskActions) {
        if deliveries.append(consume event) { actions.readingPause = pauseDecision() }
        if deliveries.claimDrain() { actions.scheduleDrain = true }
    }

    /// What the task wants now, with the next version; nil without a request, or when `onlyIfPaused` and it
    /// wants the response read (the transport's default: nothing to send).
    private mutating func pauseDecision(onlyIfPaused: Bool = false) -> ReadingPauseDecision? {
        guard let requestID else { return nil }
        let paused = isSuspended || deliveries.isBacklogged
        if onlyIfPaused, !paused { return nil }
        pauseVersion += 1
        return ReadingPauseDecision(request: requestID, paused: paused, version: pauseVersion)
    }
}
