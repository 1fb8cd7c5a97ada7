import Foundation

// MARK: - CallbackPlacement

/// Counts a URLSession client's callbacks (completion handlers, delegate messages) and those of them that ran
/// off the session's delegate queue, which the URLSession contract forbids: every callback must run inside an
/// operation of `session.delegateQueue` (`OperationQueue.current === session.delegateQueue`). The count is
/// part of the client's JSON line, so a change to how sessions deliver (issue 23's hosted session loop) is
/// checked on every benchmark run; it must be 0.
///
/// One callback in `checkEvery` is checked, the first included. On Linux `OperationQueue.current` asks
/// CoreFoundation whether the thread is the main thread, which is two system calls (`getpid`, `gettid`);
/// checking every callback added them to every request of the row being measured — 3.5 % of a keep-alive
/// GET at c=1 (`Scripts/bench-ab.sh`-style interleaved rounds, stop 45) — a cost the libcurl and
/// AsyncHTTPClient rows never paid. Every request of a closed loop takes the same delivery path, so a
/// misplaced delivery shows in the sample; the suite checks every callback of such a loop, and the
/// contract's other cases (Tests/FWURLSessionTests/Hosting/HostedSessionTests.swift).
public final class CallbackPlacement: @unchecked Sendable { // the counts are guarded by `lock`
    /// The one tally of the process.
    public static let shared = CallbackPlacement()
    /// How many callbacks make one checked callback.
    public static let checkEvery = 8

    private let lock = NSLock()
    private var callbacks = 0
    private var checked = 0
    private var offQueue = 0

    /// Records one callback, and for one in `checkEvery` whether it ran on `queue` (the session's delegate
    /// queue).
    public func record(onQueue queue: OperationQueue) {
        let checks = lock.withLock {
            callbacks += 1
            return callbacks % Self.checkEvery == 1
        }
        guard checks else { return }
        let onQueue = OperationQueue.current === queue
        lock.withLock {
            checked += 1
            if !onQueue { offQueue += 1 }
        }
    }

    /// The callbacks recorded, those checked, and those of them off the delegate queue.
    public var counts: (callbacks: Int, checked: Int, offQueue: Int) {
        lock.withLock { (callbacks, checked, offQueue) }
    }
}
