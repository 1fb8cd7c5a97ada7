import Foundation
import FWTransport

// MARK: - DeliveryQueue
//
// A task's undelivered events. Events reach a task on a loop thread (from the transport), on a URL
// protocol's thread (its client) or on the caller's thread (cancel); they are queued under the task's lock and delivered on the session's delegate
// queue by at most one drain at a time, so a task's messages arrive in order even on a concurrent
// delegate queue. Delivery waits while something holds it: `suspend()`, a data delegate that has not yet
// answered `didReceive response`, a redirect decision, an authentication challenge, or the delegate's
// `willCacheResponse` answer. State messages (the task was created, resumed, suspended) go in a lane of
// their own, delivered in order ahead of the load's events and whatever holds those: `didCreateTask`
// comes first, `taskDidResume` before what the task delivers next, `taskDidSuspend` at once while the
// load's events wait. Undelivered body bytes are counted: above
// `highWater` the task asks the connection to stop reading until the drain brings them under `lowWater`,
// so a slow delegate (or a slow disk) holds the server back instead of filling memory. They are counted
// by the memory they hold (array capacity): a short read still occupies its whole read buffer. Delivered
// events are dropped from the front as the drain goes on, not only once the queue runs dry.

/// One thing that happened to a task. As in `TransportEvent`, the cases with large payloads are boxed
/// (`indirect`), so that queuing, taking out and matching an event copies a few words, not the largest case.
enum TaskEvent {
    /// From the transport.
    case transport(TransportEvent)
    /// The session layer failed the task before or instead of the transport.
    indirect case fail(URLError)
    /// A step of a response the URL cache serves without the network.
    indirect case cached(CachedDelivery)
    /// What the URL protocol of a load reported (`URLSessionTask+Protocol.swift`).
    indirect case loaded(ProtocolLoad, URLProtocolEvent)
    /// The task was made: `didCreateTask` (`URLSessionTask+Scheduling.swift`). A state message.
    case created
    /// A task with an earliest begin date may begin: `willBeginDelayedRequest` (`URLSessionTask+Scheduling.swift`).
    case begin
    /// `resume()` made the task run: `taskDidResume` for a state delegate (FWNetworking addition). A
    /// state message.
    case resumed
    /// `suspend()` stopped the task: `taskDidSuspend` for a state delegate. A state message.
    case suspended
    /// What a WebSocket task's channel reported (`WebSocket/URLSessionWebSocketTask+Channel.swift`).
    indirect case webSocket(WebSocketTaskEvent)
    /// What a stream task's connection reported (`Stream/StreamSink.swift`).
    indirect case stream(StreamTaskEvent)
    /// An event of the task's trace that the session made off the delegate queue (a hop's "request", from
    /// `transmit`), so that it reaches the trace delegate in order with the transport's (`URLSessionTask+Trace`).
    indirect case trace(URLSessionTaskTraceEvent)

    /// Whether this is a message about the task itself rather than its load: see `DeliveryQueue`.
    var isStateMessage: Bool {
        switch self {
        case .created, .resumed, .suspended: true
        default: false
        }
    }
}

/// A stored response delivered in the steps a network response is: head, body, end.
enum CachedDelivery {
    case response(URLResponse)
    case body(Data)
    case end
}

/// A task's undelivered events and what holds them.
struct DeliveryQueue {
    /// Why delivery waits.
    enum Hold: UInt8 {
        case suspended
        case awaitingDisposition
        case awaitingRedirectDecision
        case awaitingAuthentication
        case awaitingCacheDecision
    }

    /// The holds in place, a bit each: a `Set` allocated and hashed on a task's first hold, and every async
    /// `data(for:)` holds once (its response's disposition).
    struct Holds {
        private var bits: UInt8 = 0

        var isEmpty: Bool { bits == 0 }

        mutating func insert(_ hold: Hold) {
            bits |= 1 << hold.rawValue
        }

        mutating func remove(_ hold: Hold) {
            bits &= ~(1 << hold.rawValue)
        }
    }

    static let highWater = 2 * 1024 * 1024
    static let lowWater = 512 * 1024

    var holds = Holds()
    /// State messages not delivered yet (never held).
    private var stateMessages: [TaskEvent] = []
    private var events: [TaskEvent] = []
    private var head = 0
    private var isDraining = false
    private var queuedBodyBytes = 0
    /// True from when the queued body bytes pass `highWater` until they fall under `lowWater`.
    private(set) var isBacklogged = false

    /// Delivered events are dropped from the front once this many accumulate.
    static let compactionThreshold = 64
    /// The room the first event's list is made with: a small response's head, body and end, and one more.
    static let initialCapacity = 4

    /// Events not delivered yet.
    var undeliveredCount: Int { stateMessages.count + events.count - head }
    /// Events the queue holds, delivered ones not dropped yet included.
    var keptCount: Int { events.count }

    /// Queues `event`; true when `isBacklogged` changed.
    mutating func append(_ event: consuming TaskEvent) -> Bool {
        if event.isStateMessage {
            stateMessages.append(consume event)
            return false
        }
        let bodyBytes = if case .transport(.body(let bytes)) = event { bytes.capacity } else { 0 }
        // A small response brings three events (head, body, end): grown one by one from empty, the list was
        // allocated three times per task.
        if events.capacity == 0 { events.reserveCapacity(Self.initialCapacity) }
        events.append(consume event)
        guard bodyBytes > 0 else { return false }
        queuedBodyBytes += bodyBytes
        guard !isBacklogged, queuedBodyBytes > Self.highWater else { return false }
        isBacklogged = true
        return true
    }

    /// True when the caller must schedule a drain (and is now the only one draining).
    mutating func claimDrain() -> Bool {
        guard !isDraining, !stateMessages.isEmpty || (holds.isEmpty && head < events.count) else { return false }
        isDraining = true
        return true
    }

    /// The next event for the drain, or nil (and the drain stops) when held or empty; and whether
    /// `isBacklogged` changed.
    mutating func nextForDrain() -> (event: TaskEvent?, backlogChanged: Bool) {
        if !stateMessages.isEmpty { return (stateMessages.removeFirst(), false) }
        guard holds.isEmpty, head < events.count else {
            isDraining = false
            return (nil, false)
        }
        // Moved out, a trivial case left in its place: a copy would retain what the event holds, and the list
        // would release it again when emptied.
        var event = TaskEvent.begin
        swap(&event, &events[head])
        head += 1
        if head == events.count {
            events.removeAll(keepingCapacity: events.count <= 64)
            head = 0
        } else if head >= Self.compactionThreshold, 2 * head >= events.count {
            // A drain that never finds the queue empty must not keep what it delivered (bodies included).
            events.removeFirst(head)
            head = 0
        }
        guard case .transport(.body(let bytes)) = event else { return (event, false) }
        queuedBodyBytes -= bytes.capacity
        guard isBacklogged, queuedBodyBytes < Self.lowWater else { return (event, false) }
        isBacklogged = false
        return (event, true)
    }
}
