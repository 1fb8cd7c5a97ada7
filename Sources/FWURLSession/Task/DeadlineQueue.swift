import FWTransport

// MARK: - DeadlineQueue
//
// The state of `TaskDeadlines`, as a value: a binary min-heap of (deadline, task, kind), the live deadlines
// (the kinds each task has, a bit per kind, so that removing a task is one lookup), the deadline the timer is
// armed for, and the timer. Removing a task only drops its live kinds; its heap entries go when they surface,
// or when dead entries outnumber live ones past 64 entries (the heap is then rebuilt). Each method is one
// transition under `TaskDeadlines`' lock and tells it what to do after the lock (re-arm the timer, cancel the
// old one, report what is due).

/// The deadlines of a session's tasks, earliest first.
struct DeadlineQueue {
    private struct Entry {
        let deadline: Deadline
        let due: TaskDeadlines.Due
    }

    private var heap: [Entry] = []
    private var live: [TaskKey: UInt8] = [:]
    private var liveCount = 0
    /// The deadline the timer is armed, or being armed, for.
    private(set) var armedFor: Deadline?
    /// The loop timer (loop thread only).
    var timer: TimerID?

    /// The live deadlines.
    var count: Int { liveCount }

    /// Watches `due` until `deadline`; true when that is earlier than the timer's, which must be re-armed.
    mutating func insert(_ due: TaskDeadlines.Due, at deadline: Deadline) -> Bool {
        let kinds = live[TaskKey(due.id), default: 0]
        if kinds & due.kind.bit == 0 {
            live[TaskKey(due.id)] = kinds | due.kind.bit
            liveCount += 1
        }
        push(Entry(deadline: deadline, due: due))
        if let armedFor, armedFor <= deadline { return false }
        armedFor = deadline
        return true
    }

    /// Stops watching task `id` (every kind).
    mutating func remove(_ id: Int) {
        guard let kinds = live.removeValue(forKey: TaskKey(id)) else { return }
        liveCount -= kinds.nonzeroBitCount
        guard heap.count > 64, heap.count > 2 * liveCount else { return }
        heap = heap.filter { isLive($0.due) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// Re-arming: the timer to cancel, and the deadline to arm the new one for (nil: none left).
    mutating func takeTimer() -> (old: TimerID?, target: Deadline?) {
        defer { timer = nil }
        return (timer, armedFor)
    }

    /// The timer fired at `now`: pops every deadline that passed and returns the live ones, earliest first;
    /// the timer is then due to be armed for the next one.
    mutating func popDue(at now: Deadline) -> [TaskDeadlines.Due] {
        timer = nil
        var due: [TaskDeadlines.Due] = []
        while let first = heap.first, first.deadline <= now {
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
            siftDown(0)
            if isLive(first.due) {
                due.append(first.due)
                let kinds = live[TaskKey(first.due.id), default: 0] & ~first.due.kind.bit
                live[TaskKey(first.due.id)] = kinds == 0 ? nil : kinds
                liveCount -= 1
            }
        }
        armedFor = heap.first?.deadline
        return due
    }

    private func isLive(_ due: TaskDeadlines.Due) -> Bool {
        live[TaskKey(due.id), default: 0] & due.kind.bit != 0
    }

    // MARK: Binary min-heap by deadline

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
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

extension TaskDeadlines.Kind {
    /// The kind's bit in `DeadlineQueue`'s live kinds of a task.
    var bit: UInt8 {
        switch self {
        case .resource: 1
        case .begin: 2
        case .retry: 4
        }
    }
}
