import Dispatch
import Foundation
import FWNetworking

// ProfileClient's closed loop (`--concurrency C`): C chains of requests, where each completion handler, on
// the session's delegate queue, starts its chain's next request, as the benchmark's handler client does
// (Scripts/bench/Sources/BenchSupport/ClosedLoop.swift). A request then costs what it costs there, without
// the hop to the main thread that the sequential loop adds. One completion handler in eight checks that it
// runs on the session's delegate queue: `OperationQueue.current` costs two system calls on Linux (`getpid`,
// `gettid`), which checking every handler added to every request counted here (BenchSupport's
// CallbackPlacement says more).

/// The chains' shared count: requests started and completed, and completions off the delegate queue.
final class ClosedLoopCounts: @unchecked Sendable { // guarded by `lock`
    private let lock = NSLock()
    private let total: Int
    private var started = 0
    private var completed = 0
    private(set) var offQueue = 0

    init(total: Int) {
        self.total = total
    }

    /// Claims the next request; false once `total` were started.
    func claim() -> Bool {
        lock.withLock {
            guard started < total else { return false }
            started += 1
            return true
        }
    }

    /// Counts a completion: whether it was the last one, and whether its queue is to be checked (one in
    /// eight, the first included).
    func complete() -> (last: Bool, checks: Bool) {
        lock.withLock {
            completed += 1
            return (completed == total, completed % 8 == 1)
        }
    }

    /// Counts a checked completion that ran off the delegate queue.
    func ranOffQueue() {
        lock.withLock { offQueue += 1 }
    }
}

/// Sends `count` GETs of `request` in `concurrency` chains and returns when all completed; returns how many
/// of the checked completion handlers ran off the session's delegate queue.
func runClosedLoop(session: URLSession, request: URLRequest, count: Int, concurrency: Int) -> Int {
    guard count > 0 else { return 0 }
    let counts = ClosedLoopCounts(total: count)
    let finished = DispatchSemaphore(value: 0)
    @Sendable func next() {
        guard counts.claim() else { return }
        session.dataTask(with: request) { _, response, error in
            check(response, error)
            let (last, checks) = counts.complete()
            if checks, OperationQueue.current !== session.delegateQueue { counts.ranOffQueue() }
            if last {
                finished.signal()
            } else {
                next()
            }
        }.resume()
    }
    for _ in 0..<min(max(concurrency, 1), count) { next() }
    finished.wait()
    return counts.offQueue
}
