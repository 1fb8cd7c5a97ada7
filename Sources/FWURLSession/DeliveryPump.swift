import Foundation
import FWTransport

// MARK: - DeliveryPump
//
// Runs the drains of a session's tasks on its delegate queue. On a serial delegate queue (the one a
// session makes for itself, or any queue limited to one operation at a time) the tasks that have events
// wait in one FIFO and a single operation drains them one after another: when many tasks finish
// together (32 requests in flight) that is one operation — one wake-up of the delegate queue — for all
// of them instead of one each, and every message still runs inside an operation of the delegate queue,
// in order per task. On a concurrent delegate queue each drain is its own operation, so tasks keep
// running in parallel there. On a session that hosts its loop on its delegate queue (SessionDelegateQueue)
// the drain is no operation at all: it runs in the loop's slice, which is one, at the end of the iteration
// that produced the events (or as a loop task when they came from another thread), so a response is
// delivered in the operation that read it. Either way a drain never runs inside `resume()`, `cancel()` or
// another callback: it is queued behind them.

final class DeliveryPump: EndOfIterationWork, @unchecked Sendable { // state: LockedBox; queue, hostedLoop: thread-safe
    private struct State {
        /// Tasks to drain, in order; each is taken out (nil) when its drain starts, so that the pump's
        /// reference goes with the drain, never inside the lock (the last reference may free the task).
        var ready: [URLSessionTask?] = []
        var head = 0
        var isScheduled = false
    }

    private let queue: OperationQueue
    /// The loop the delegate queue hosts, whose slices run the drains; nil when drains are operations.
    let hostedLoop: EventLoop?
    private let state = LockedBox(State())

    init(queue: OperationQueue, hostedLoop: EventLoop?) {
        self.queue = queue
        self.hostedLoop = hostedLoop
    }

    /// Has `task` drained (it claimed its drain, so it is in no FIFO yet).
    func schedule(_ task: URLSessionTask) {
        guard hostedLoop != nil || queue.maxConcurrentOperationCount == 1 else {
            queue.addOperation { task.drain() }
            return
        }
        let startDrain = state.withLock { state -> Bool in
            state.ready.append(task)
            guard !state.isScheduled else { return false }
            state.isScheduled = true
            return true
        }
        guard startDrain else { return }
        guard let hostedLoop else { return queue.addOperation { self.run() } }
        if hostedLoop.inEventLoop {
            hostedLoop.atEndOfIteration(self)
        } else {
            hostedLoop.execute { self.run() }
        }
    }

    /// The hosted loop's end of iteration: the drains scheduled from its thread run (`schedule`).
    func runAtEndOfIteration() {
        run()
    }

    /// Drains ready tasks until none is left (delegate queue; a hosted loop's slice is one of its operations).
    private func run() {
        while let task = nextTask() {
            task.drain()
        }
    }

    /// The next ready task, or nil — and the operation ends — when there is none.
    private func nextTask() -> URLSessionTask? {
        state.withLock { state in
            guard state.head < state.ready.count else {
                state.ready.removeAll(keepingCapacity: true)
                state.head = 0
                state.isScheduled = false
                return nil
            }
            defer { state.head += 1 }
            return state.ready[state.head].take()
        }
    }
}
