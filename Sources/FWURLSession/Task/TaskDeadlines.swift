import FWTransport

// MARK: - TaskDeadlines
//
// The deadlines of a session's tasks — the resource timeout (`timeoutIntervalForResource`), the earliest
// begin date and a durable download's retry wait — on the session's loop and clock (`SessionEngine`), with
// one loop timer for all of them: a min-heap of (deadline, task, kind) under a lock, and one timer on `loop`
// armed for the earliest deadline.
//
// Adding from any thread costs a heap push and a dictionary update under the lock. Only a deadline earlier than
// the one the timer is armed for re-arms it, which hops to the loop (`execute`); with one timeout for every
// task the deadlines arrive in order, so the common request arms nothing. Removing (the task completed) only
// drops the task's live kinds; its heap entry goes when it surfaces, or when dead entries outnumber
// live ones (the heap is then rebuilt). When the timer fires it pops the due entries, re-arms for the next
// one and hands the live due ones to `onDue`, on the loop thread, no lock held.
//
// The heap, the live kinds and the timer's id are a `DeadlineQueue` (DeadlineQueue.swift), a value under one
// lock. The timer's id is written and read on the loop thread only (kept in the lock's state, so that the
// class is Sendable without exceptions). A session without loops (the process could not start them) has no timer:
// begin dates are due at once (the task then fails at its first request) and resource timeouts never fire.

/// The resource timeouts and begin dates of a session's tasks, as one timer on the session's loop.
final class TaskDeadlines: Sendable {
    /// What a deadline ends.
    enum Kind: Hashable, Sendable, CaseIterable {
        /// `timeoutIntervalForResource` ran out.
        case resource
        /// The earliest begin date came.
        case begin
        /// A durable download's retry wait is over (`Background/URLSessionTask+DurableRetry.swift`).
        case retry
    }

    /// A deadline that passed: the task's identifier and what it ends.
    struct Due: Hashable, Sendable {
        let id: Int
        let kind: Kind
    }

    /// The deadlines and the timer, behind `withQueue`.
    private let queue = LockedBox(DeadlineQueue())
    /// The loop the timer runs on; nil without loops.
    private let loop: EventLoop?
    private let onDue: @Sendable ([Due]) -> Void

    /// Deadlines on `loop`'s clock; `onDue` gets those that passed, on `loop`'s thread (at once, on the
    /// caller's thread, for a begin date without a loop).
    init(loop: EventLoop?, onDue: @escaping @Sendable ([Due]) -> Void) {
        self.loop = loop
        self.onDue = onDue
    }

    deinit {
        guard let loop, let timer = withQueue({ $0.timer }) else { return }
        loop.execute { loop.cancelTimer(timer) }
    }

    // MARK: Inputs (any thread)

    /// Watches `kind` of task `id` until `deadline` (on the loop's clock). A deadline already passed is due
    /// in the loop's next iteration.
    func add(_ id: Int, _ kind: Kind, at deadline: Deadline) {
        let due = Due(id: id, kind: kind)
        guard let loop else {
            if kind == .begin { onDue([due]) }
            return
        }
        guard withQueue({ $0.insert(due, at: deadline) }) else { return }
        if loop.inEventLoop {
            armTimer()
        } else {
            loop.execute { [weak self] in self?.armTimer() }
        }
    }

    /// Stops watching task `id` (every kind): it completed, or another task took its transfer over.
    func remove(_ id: Int) {
        withQueue { $0.remove(id) }
    }

    // MARK: The timer (loop thread)

    /// Replaces the timer by one at `armedFor`.
    private func armTimer() {
        guard let loop else { return }
        let (old, target) = withQueue { $0.takeTimer() }
        if let old { loop.cancelTimer(old) }
        guard let target else { return }
        let timer = loop.scheduleTimer(at: target) { [weak self] in self?.fire() }
        withQueue { $0.timer = timer }
    }

    /// Pops what is due by the loop's clock, re-arms for the next deadline and reports the live ones.
    private func fire() {
        guard let loop else { return }
        let now = loop.now()
        let due = withQueue { $0.popDue(at: now) }
        armTimer()
        if !due.isEmpty { onDue(due) }
    }

    /// The door to the queue: a transition under the lock, whose result is acted on after it.
    private func withQueue<Result>(_ transition: (inout DeadlineQueue) -> Result) -> Result {
        queue.withLock(transition)
    }
}
