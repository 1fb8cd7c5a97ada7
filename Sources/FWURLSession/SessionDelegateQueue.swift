import Foundation
import FWTransport

// MARK: - SessionDelegateQueue
//
// The delegate queue a session makes when it is given none (`delegateQueue: nil`, `init(configuration:)`,
// `shared`): a serial operation queue that also hosts the session's event loop (design/small-request-path.md,
// stage B; FWLoop's EventLoop+Hosted.swift). The loop's slices are operations of this queue, so the session's
// connections are read, its responses parsed and its delegate messages and completion handlers delivered in
// the same operation, on the same thread, with no hand-off between threads; a request resumed inside a
// completion handler is written in that operation too. Every callback still runs inside an operation of
// `session.delegateQueue` (`OperationQueue.current` is this queue) and in order, as Apple documents.
//
// Fairness: an operation anyone else adds (the session's own, or a caller's) asks the running slice to yield,
// so it waits at most one loop iteration; the slice asks for its successor behind it. The queue runs on a
// serial dispatch queue of its own (`underlyingQueue`), whose thread comes from the overcommit pool, so a
// lingering slice never holds one of the pool's CPU-count threads. `maxConcurrentOperationCount` stays 1:
// the delivery order depends on it.

/// A session-made delegate queue that runs the session's hosted event loop in its operations.
///
/// `@unchecked Sendable`: `OperationQueue` is thread-safe; `hostedLoop` is set once, before the session hands
/// the queue out, and read after.
final class SessionDelegateQueue: OperationQueue, EventLoopHost, @unchecked Sendable { // see above
    /// Kept here: `OperationQueue.underlyingQueue` does not retain it.
    private let dispatchQueue = DispatchQueue(label: "FWURLSession delegate queue")
    /// The loop whose slices this queue runs (nil when the session does not host one); weak, as the loop holds
    /// its host.
    private(set) weak var hostedLoop: EventLoop?

    override init() {
        super.init()
        super.maxConcurrentOperationCount = 1
        name = "FWURLSession delegate queue"
        underlyingQueue = dispatchQueue
    }

    /// Makes this queue the host of `loop` (once, before the session is handed out).
    func host(_ loop: EventLoop) {
        hostedLoop = loop
    }

    /// Stays 1: deliveries depend on the queue being serial. Setting it changes nothing.
    override var maxConcurrentOperationCount: Int {
        get { super.maxConcurrentOperationCount }
        set { _ = newValue }
    }

    // MARK: EventLoopHost

    func scheduleSlice(of loop: EventLoop) {
        super.addOperation(SliceOperation(loop))
    }

    // MARK: Other work yields the loop

    override func addOperation(_ op: Operation) {
        super.addOperation(op)
        hostedLoop?.requestYield()
    }

    override func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool) {
        // Queued, then the yield, then the wait: a slice asked to yield before the operations are queued could
        // ask for its successor ahead of them.
        super.addOperations(ops, waitUntilFinished: false)
        hostedLoop?.requestYield()
        if wait {
            ops.forEach { $0.waitUntilFinished() }
        }
    }

    override func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
        super.addBarrierBlock(barrier)
        hostedLoop?.requestYield()
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
