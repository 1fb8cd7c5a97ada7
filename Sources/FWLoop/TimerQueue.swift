// TimerQueue: the timers of one EventLoop, a min-heap of deadlines (loop thread only).

/// Scheduled tasks ordered by deadline; equal deadlines run in the order they were scheduled.
///
/// Cancelling removes the task at once and leaves its heap entry behind; stale entries are dropped when
/// they reach the top and the heap is rebuilt when they outnumber the live ones. The top is always live
/// (every change that can uncover or stale it drops stale tops), so `earliestDeadline()`, which the loop
/// asks up to three times an iteration, reads the heap without a lookup. The queue reads no clock: its
/// owner passes the time in (`popExpired(now:)`), read from the loop's `EventLoopClock`.
struct TimerQueue {
    private struct Entry {
        let deadline: Deadline
        /// Increasing with each schedule, so it breaks deadline ties in FIFO order.
        let sequence: UInt64
        /// The task's id in `tasks`.
        let id: UInt64

        func precedes(_ other: Entry) -> Bool {
            (deadline, sequence) < (other.deadline, other.sequence)
        }
    }

    private var heap: [Entry] = []
    /// The tasks of live timers, by id (a cancelled or fired timer's id finds nothing, SlotTable.swift).
    private var tasks = SlotTable<() -> Void>()
    private var nextSequence: UInt64 = 0

    // MARK: Inputs

    /// Schedules `task` at `deadline`.
    mutating func schedule(at deadline: Deadline, _ task: @escaping () -> Void) -> TimerID {
        let id = tasks.insert(task)
        nextSequence += 1
        push(Entry(deadline: deadline, sequence: nextSequence, id: id))
        return TimerID(rawValue: id)
    }

    /// Cancels a timer; unknown, fired or already cancelled ids are ignored.
    mutating func cancel(_ id: TimerID) {
        guard tasks.remove(id.rawValue) != nil else {
            return
        }
        if heap.first?.id == id.rawValue {
            dropStaleTop()
        } else if heap.count > 64 && heap.count > 2 * tasks.count {
            compact()
        }
    }

    /// The earliest deadline of a live timer, or nil when none is scheduled.
    func earliestDeadline() -> Deadline? {
        heap.first?.deadline
    }

    /// Removes the timers due at `now` and returns their ids in firing order. Their tasks stay until
    /// `take`, so a timer run before them can still cancel them.
    mutating func popExpired(now: Deadline) -> [TimerID] {
        var expired: [TimerID] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if tasks.contains(top.id) {
                expired.append(TimerID(rawValue: top.id))
            }
        }
        dropStaleTop()
        return expired
    }

    /// Removes and returns the task of a popped timer, or nil if it was cancelled meanwhile.
    mutating func take(_ id: TimerID) -> (() -> Void)? {
        tasks.remove(id.rawValue)
    }

    /// Drops every timer.
    mutating func removeAll() {
        heap = []
        tasks.removeAll()
    }

    // MARK: Heap

    private mutating func dropStaleTop() {
        while let top = heap.first, !tasks.contains(top.id) {
            popTop()
        }
    }

    private mutating func compact() {
        heap = heap.filter { tasks.contains($0.id) }.sorted { $0.precedes($1) }
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else {
                break
            }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else {
            return
        }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].precedes(heap[smallest]) {
                smallest = left
            }
            if right < heap.count && heap[right].precedes(heap[smallest]) {
                smallest = right
            }
            guard smallest != parent else {
                return
            }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
