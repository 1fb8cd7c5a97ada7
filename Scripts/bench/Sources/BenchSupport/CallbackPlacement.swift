import Foundation

// MARK: - CallbackPlacement

/// Counts a URLSession client's callbacks (completion handlers, delegate messages) and those of them that ran
/// off the session's delegate queue, which the URLSession contract forbids: every callback must run inside an
/// operation of `session.delegateQueue` (`OperationQueue.current === session.delegateQueue`). The count is
/// part of the client's JSON line, so a change to how sessions deliver (issue 23's hosted session loop) is
/// checked on every benchmark run; it must be 0.
public final class CallbackPlacement: @unchecked Sendable { // the counts are guarded by `lock`
    /// The one tally of the process.
    public static let shared = CallbackPlacement()

    private let lock = NSLock()
    private var callbacks = 0
    private var offQueue = 0

    /// Records one callback, and whether it ran on `queue` (the session's delegate queue).
    public func record(onQueue queue: OperationQueue) {
        let onQueue = OperationQueue.current === queue
        lock.withLock {
            callbacks += 1
            if !onQueue { offQueue += 1 }
        }
    }

    /// The callbacks recorded, and those off the delegate queue.
    public var counts: (callbacks: Int, offQueue: Int) {
        lock.withLock { (callbacks, offQueue) }
    }
}
