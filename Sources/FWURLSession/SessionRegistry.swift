import Foundation

// MARK: - SessionRegistry
//
// What a session changes after it was made: its tasks until they complete, the next task identifier, its
// description, and its invalidation. A value in the session's one lock (`URLSession.withRegistry`); every
// method here is a transition and returns what the session must do after the lock (cancel these tasks,
// complete the invalidation, tell this delegate), so none of them calls out.
//
// Invalidation runs one way:
//
//   active ──finishTasksAndInvalidate──▶ invalidating ──last task gone──▶ (complete) ──▶ invalidated
//      └─────invalidateAndCancel (cancels every task, stops reporting them)──▲
//
// `invalidating` completes as soon as no task is left: at once when there was none, else when the last one
// delivered its completion. `invalidated` is set on the delegate queue, just before the delegate hears
// `didBecomeInvalidWithError`, and the session lets its delegate go there.

/// A session's tasks, identifiers, description and invalidation.
struct SessionRegistry {
    enum Invalidation: Equatable {
        case active
        /// `finishTasksAndInvalidate()` or `invalidateAndCancel()` was called; waiting for tasks.
        case invalidating
        /// `didBecomeInvalidWithError` was sent.
        case invalidated
    }

    private(set) var tasks: [TaskKey: URLSessionTask] = [:]
    private(set) var nextIdentifier: Int
    private(set) var invalidation = Invalidation.active
    /// `invalidateAndCancel()` was called: the tasks still completing are no longer reported.
    private(set) var cancelledTasks = false
    /// Until the session is invalidated.
    private(set) var delegate: (any URLSessionDelegate)?
    /// `URLSession.sessionDescription`.
    var sessionDescription: String?

    /// A registry whose first task gets `firstIdentifier`.
    init(firstIdentifier: Int = 1, delegate: (any URLSessionDelegate)?) {
        nextIdentifier = firstIdentifier
        self.delegate = delegate
    }

    // MARK: Tasks

    /// Registers the task `make` builds with the next identifier (or `fixed`, a re-attached background task's
    /// own; later identifiers go past it).
    mutating func register<Task: URLSessionTask>(fixed: Int?, _ make: (Int) -> Task) -> Task {
        let identifier = fixed ?? nextIdentifier
        nextIdentifier = max(nextIdentifier, identifier + 1)
        let task = make(identifier)
        tasks[TaskKey(identifier)] = task
        return task
    }

    /// The task delivered its completion: it leaves. True when that completes an invalidation.
    mutating func remove(_ identifier: Int) -> Bool {
        tasks[TaskKey(identifier)] = nil
        return invalidation == .invalidating && tasks.isEmpty
    }

    /// The tasks that have not completed, in the order they were made; none once `invalidateAndCancel()` ran.
    var current: [URLSessionTask] {
        cancelledTasks ? [] : tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier }
    }

    // MARK: Invalidation

    /// `finishTasksAndInvalidate()` (`cancelling` false) or `invalidateAndCancel()` (true): the tasks to
    /// cancel, and whether the invalidation completes now (no task left). Only the first call counts.
    mutating func invalidate(cancelling: Bool) -> (cancel: [URLSessionTask], completeNow: Bool) {
        guard invalidation == .active else { return ([], false) }
        invalidation = .invalidating
        if cancelling { cancelledTasks = true }
        return (cancelling ? Array(tasks.values) : [], tasks.isEmpty)
    }

    /// The invalidation completed (delegate queue): the delegate to tell, which the session lets go of.
    mutating func completeInvalidation() -> (any URLSessionDelegate)? {
        invalidation = .invalidated
        defer { delegate = nil }
        return delegate
    }
}
