import Foundation
import FWTransport

// MARK: - ResourceTimeouts
//
// The `timeoutIntervalForResource` deadlines of a session's tasks, with one timer for all of them: a
// min-heap of (deadline, task identifier) under a lock and one DispatchSourceTimer armed for the
// earliest deadline. A task that completes is only removed from the live set; its heap entry is dropped
// when it surfaces, or when dead entries outnumber live ones (the heap is then rebuilt). Adding and
// removing cost a heap push and two set operations, instead of a dispatch work item and a kernel timer
// per task (which showed up at 12% of the CPU of small requests).

final class ResourceTimeouts: @unchecked Sendable { // `state` is LockedBox; `timer` is thread-safe
    private struct Entry {
        let deadline: DispatchTime
        let id: Int
    }

    private struct State {
        var heap: [Entry] = []
        var live: Set<Int> = []
        var armedFor: DispatchTime?
    }

    private let state = LockedBox(State())
    private let timer = DispatchSource.makeTimerSource(queue: .global())

    /// `onDue` gets the identifiers of the tasks whose deadline passed (on a global queue, no lock held).
    init(onDue: @escaping @Sendable ([Int]) -> Void) {
        timer.setEventHandler { [weak self] in
            guard let due = self?.takeDue(), !due.isEmpty else { return }
            onDue(due)
        }
        timer.schedule(deadline: .distantFuture)
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Starts watching task `id`.
    func add(_ id: Int, deadline: DispatchTime) {
        state.withLock { state in
            state.live.insert(id)
            Self.push(Entry(deadline: deadline, id: id), onto: &state.heap)
            if let armed = state.armedFor, armed <= deadline { return }
            state.armedFor = deadline
            timer.schedule(deadline: deadline)
        }
    }

    /// Stops watching task `id` (it completed).
    func remove(_ id: Int) {
        state.withLock { state in
            guard state.live.remove(id) != nil else { return }
            if state.heap.count > 64, state.heap.count > 2 * state.live.count {
                state.heap = state.heap.filter { state.live.contains($0.id) }
                Self.heapify(&state.heap)
            }
        }
    }

    /// Pops the entries that are due; returns the live ones and re-arms for the next deadline.
    private func takeDue() -> [Int] {
        let now = DispatchTime.now()
        return state.withLock { state in
            var due: [Int] = []
            while let first = state.heap.first, first.deadline <= now {
                Self.popFirst(&state.heap)
                if state.live.remove(first.id) != nil { due.append(first.id) }
            }
            state.armedFor = state.heap.first?.deadline
            timer.schedule(deadline: state.armedFor ?? .distantFuture)
            return due
        }
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
