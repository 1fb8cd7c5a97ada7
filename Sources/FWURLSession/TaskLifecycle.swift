// MARK: - TaskLifecycle
//
// The public lifecycle of a `URLSessionTask` as a value type (`URLSessionTask.State` is derived):
//
//   created (suspend count 1) ──resume──▶ running ──finish──▶ completed
//        │                       ▲   │                          ▲
//        │                suspend│   │resume (count back to 0)  │
//        │                       │   ▼                          │
//        │                    suspended (count ≥ 1)             │
//        └──────cancel──────────────────────▶ canceling ──finish┘
//
// `suspend()` and `resume()` nest: the task runs while the count is zero. The first time it reaches
// zero the request starts; later resumes only release delivery. `cancel()` stops the transfer if
// it started and completes the task with `cancelled`, even when suspended. Only the first `finish`
// completes the task: a cancel can race with the transport's own end.

/// The lifecycle state machine of one task.
struct TaskLifecycle {
    /// What the task must do.
    enum Action: Equatable {
        case none
        /// Hand the request to the transport.
        case start
        /// Let delegate messages flow again.
        case resumeDelivery
        /// Hold delegate messages.
        case pauseDelivery
        /// Stop the transfer (if it started) and complete the task with `cancelled`.
        case cancel
        /// Deliver the completion.
        case complete
    }

    private enum State {
        case created(suspendCount: Int)
        case running(suspendCount: Int)
        case canceling
        case completed
    }

    private var state = State.created(suspendCount: 1)

    /// The public state.
    var publicState: URLSessionTask.State {
        switch state {
        case .created: return .suspended
        case .running(let count): return count == 0 ? .running : .suspended
        case .canceling: return .canceling
        case .completed: return .completed
        }
    }

    /// True while delegate messages are held by `suspend()`.
    var isSuspended: Bool {
        if case .running(let count) = state { return count > 0 }
        return false
    }

    mutating func resume() -> Action {
        switch state {
        case .created(let count) where count > 1:
            state = .created(suspendCount: count - 1)
            return .none
        case .created:
            state = .running(suspendCount: 0)
            return .start
        case .running(let count) where count > 0:
            state = .running(suspendCount: count - 1)
            return count == 1 ? .resumeDelivery : .none
        case .running, .canceling, .completed:
            return .none
        }
    }

    mutating func suspend() -> Action {
        switch state {
        case .created(let count):
            state = .created(suspendCount: count + 1)
            return .none
        case .running(let count):
            state = .running(suspendCount: count + 1)
            return count == 0 ? .pauseDelivery : .none
        case .canceling, .completed:
            return .none
        }
    }

    mutating func cancel() -> Action {
        switch state {
        case .created:
            state = .canceling
            return .cancel
        case .running:
            state = .canceling
            return .cancel
        case .canceling, .completed:
            return .none
        }
    }

    /// The transfer ended (successfully or not).
    mutating func finish() -> Action {
        switch state {
        case .running, .canceling:
            state = .completed
            return .complete
        case .completed:
            // A cancel raced with the transport's own end: the first one won.
            return .none
        case .created:
            preconditionFailure("finish() in state \(state)")
        }
    }
}
