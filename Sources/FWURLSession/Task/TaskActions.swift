import FWTransport

// MARK: - TaskActions
//
// What one input of `TaskStateMachine` asks the task to do once the lock is released. A value with one slot
// per kind of effect rather than a list, so that an input costs no allocation; the task runs the slots in the
// order they are declared (`URLSessionTask.run(_:)`), which is the order the effects must happen in: the
// transport request is stopped before its failure can be delivered, the pause decision goes out before the
// drain that may lift it, and a start comes last, after the state message that announces it was queued.

struct TaskActions {
    /// Cancel this transport request (it ends with `cancelled`).
    var cancelRequest: RequestID?
    /// Stop the URL protocol loading the current hop, if one is.
    var stopProtocolLoad = false
    /// Tell the transport whether to read the request's response.
    var readingPause: ReadingPauseDecision?
    /// Have the session's delivery pump drain the task (this input claimed the drain).
    var scheduleDrain = false
    /// Start loading: the first `resume()`.
    var start = false
}

/// Whether the transport should read `request`'s response, numbered so that only the latest decision counts.
struct ReadingPauseDecision: Equatable {
    var request: RequestID
    var paused: Bool
    var version: UInt64
}
