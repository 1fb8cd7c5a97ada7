import FWTransport

// MARK: - TaskDeadlines
//
// The deadlines of a session's tasks — the resource timeout (`timeoutIntervalForResource`), the earliest
// begin date and a durable download's retry wait — on the session's loop and clock (`SessionEngine`), with
// one loop timer for all of them: a min-heap of (deadline, task, kind) under a lock, and one timer on `loop`
// armed for the earliest deadline.
//
// Adding from any thread costs a heap push and a set insert under the lock. Only a deadline earlier than
// the one the timer is armed for re-arms it, which hops to the loop (`execute`); with one timeout for every
// task the deadlines arrive in order, so the common request arms nothing. Removing (the task completed) only
// drops the key from the live set; its heap entry goes when it surfaces, or when dead entries outnumber
// live ones (the heap is then rebuilt). When the timer fires it pops the due entries, re-arms for the next
// one and hands the live due ones to `onDue`, on the loop thread, no lock held.
//
// The timer's id is written and read on the loop thread only (kept in the lock's state, so that the class is
// Sendable without exceptions). A session without loops (the process could not start them) has no timer:
// begin dates are due at once (the task then fails at its first request) and resource timeouts never fire.

/// The resource timeouts and begin dates of a session's tasks, as one timer on the session's loop.
final class TaskDeadlines: Sendable {
    /// What a deadline ends.
    enum Kind: Hashable, Sendable {
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

    private struct Entry {
        let deadline: Deadline
        let due: Due
    }

    private struct State {
        var heap: [Entry] = []
        var live: Set<Due> = []
        /// The deadline the timer is armed, or being armed, for.
        var armedFor: Deadline?
        /// The loop timer (loop thread only).
        var timer: TimerID?
    }

    private let state = LockedBox(State())
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
        guard let loop, let timer = state.withLock({ $0.timer }) else { return }
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
        let rearm = state.withLock { state -> Bool in
            state.live.insert(due)
            Self.push(Entry(deadline: deadline, due: due), onto: &state.heap)
            if let armed = state.armedFor, armed <= deadline { return false }
            state.armedFor = deadline
            return true
        }
        guard rearm else { return }
        if loop.inEventLoop {
            armTimer()
        } else {
            loop.execute { [weak self] in self?.armTimer() }
        }
    }

    /// Stops watching task `id` (every kind): it completed, or another task took its transfer over.
    func remove(_ id: Int) {
        state.withLock { state in
            let resource = state.live.remove(Due(id: id, kind: .resource)) != nil
            let begin = state.live.remove(Due(id: id, kind: .begin)) != nil
            let retry = state.live.remove(Due(id: id, kind: .retry)) != nil
            guard resource || begin || retry, state.heap.count > 64,
                  state.heap.count > 2 * state.live.count else { return }
            state.heap = state.heap.filter { state.live.contains($0.due) }
            Self.heapify(&state.heap)
        }
    }

    // MARK: The timer (loop thread)

    /// Replaces the timer by one at `armedFor`.
    private func armTimer() {
        guard let loop else { return }
        let (old, target) = state.withLock { state in
            defer { state.timer = nil }
            return (state.timer, state.armedFor)
        }
        if let old { loop.cancelTimer(old) }
        guard let target else { return }
        let timer = loop.scheduleTimer(at: target) { [weak self] in self?.fire() }
        state.withLock { $0.timer = timer }
    }

    /// Pops what is due by the loop's clock, re-arms for the next deadline and reports the live ones.
    private func fire() {
        guard let loop else { return }
        let now = loop.now()
        let due = state.withLock { state -> [Due] in
            state.timer = nil
            var due: [Due] = []
            while let first = state.heap.first, first.deadline <= now {
                Self.popFirst(&state.heap)
                if state.live.remove(first.due) != nil { due.append(first.due) }
            }
            state.armedFor = state.heap.first?.deadline
            return due
        }
        armTimer()
        if !due.isEmpty { onDue(due) }
    }

    // MARK: Binary min-heap by deadline

    private static func push(_ entry: Entry, onto heap: inout [Entry]) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func popFirst(_ heap: inout [Entry]) {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        siftDown(0, in: &heap)
    }

    private static func heapify(_ heap: inout [Entry]) {
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index, in: &heap) }
    }

    private static func siftDown(_ start: Int, in heap: inout [Entry]) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
