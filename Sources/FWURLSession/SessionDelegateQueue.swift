import Foundation
import FWTransport

// MARK: - SessionDelegateQueue
//
// The delegate queue a session makes when it is given none (`delegateQueue: nil`, `init(configuration:)`,
// `shared`), and the one a session manager makes for its sessions: a serial operation queue that also hosts
// the session's event loop (design/small-request-path.md, stage B; FWLoop's EventLoop+Hosted.swift). The loop's slices are operations of this queue, so the session's
// connections are read, its responses parsed and its delegate messages and completion handlers delivered in
// the same operation, on the same thread, with no hand-off between threads; a request resumed inside a
// completion handler is written in that operation too. Every callback still runs inside an operation of
// `session.delegateQueue` (`OperationQueue.current` is this queue) and in order, as Apple documents.
//
// Fairness: an operation anyone else adds (the session's own, or a caller's) asks the running slice to yield,
// so it waits at most one loop iteration; the slice asks for its successor behind it. A queue may host the
// loops of several sessions, one after another or at once (a session manager's queue outlives the session it
// resets): a slice asked for one loop also asks the others to yield. The queue runs on a serial dispatch
// queue of its own (`underlyingQueue`), whose thread comes from the overcommit pool, so a lingering slice
// never holds one of the pool's CPU-count threads. `maxConcurrentOperationCount` stays 1: the delivery order
// depends on it.

/// A delegate queue that runs its sessions' hosted event loops in its operations: the one a session makes for
/// itself, or one a session manager (FWNetworking) makes and hands to each session it creates.
///
/// `@unchecked Sendable`: `OperationQueue` is thread-safe; `hosted` is a `LockedBox`.
package final class SessionDelegateQueue: OperationQueue, EventLoopHost, @unchecked Sendable { // see above
    private struct WeakLoop {
        weak var loop: EventLoop?
    }

    /// Kept here: `OperationQueue.underlyingQueue` does not retain it.
    private let dispatchQueue = DispatchQueue(label: "FWURLSession delegate queue")
    /// The loops whose slices this queue runs; weak, as each loop holds its host.
    private let hosted = LockedBox<[WeakLoop]>([])

    override package init() {
        super.init()
        super.maxConcurrentOperationCount = 1
        name = "FWURLSession delegate queue"
        underlyingQueue = dispatchQueue
    }

    /// Makes this queue a host of `loop` (before its session is handed out).
    func host(_ loop: EventLoop) {
        hosted.withLock { loops in
            loops.removeAll { $0.loop == nil }
            loops.append(WeakLoop(loop: loop))
        }
    }

    /// Stays 1: deliveries depend on the queue being serial. Setting it changes nothing.
    override package var maxConcurrentOperationCount: Int {
        get { super.maxConcurrentOperationCount }
        set { _ = newValue }
    }

    // MARK: EventLoopHost

    package func scheduleSlice(of loop: EventLoop) {
        super.addOperation(SliceOperation(loop))
        yieldLoops(except: loop)
    }

    // MARK: Other work yields the loops

    override package func addOperation(_ op: Operation) {
        super.addOperation(op)
        yieldLoops(except: nil)
    }

    override package func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool) {
        // Queued, then the yield, then the wait: a slice asked to yield before the operations are queued could
        // ask for its successor ahead of them.
        super.addOperations(ops, waitUntilFinished: false)
        yieldLoops(except: nil)
        if wait {
            ops.forEach { $0.waitUntilFinished() }
        }
    }

    override package func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
        super.addBarrierBlock(barrier)
        yieldLoops(except: nil)
    }

    /// Asks every hosted loop but `skipped` to yield (outside the lock: each takes its own).
    private func yieldLoops(except skipped: EventLoop?) {
        let loops = hosted.withLock { $0.compactMap(\.loop) }
        for loop in loops where loop !== skipped {
            loop.requestYield()
        }
    }
}

/// One slice of a hosted loop, as an operation of its `SessionDelegateQueue`.
private final class SliceOperation: Operation, @unchecked Sendable { // immutable after init
    private let loop: EventLoop

    init(_ loop: EventLoop) {
        self.loop = loop
    }

    override func main() {
        loop.runSlice()
    }
}
