import Foundation
import FWTransport

// MARK: - URLSessionExecutor
//
// An FWNetworking addition: a task executor (SE-0417) that runs Swift concurrency jobs where the session's
// completion handlers run, so that an async caller who prefers it
//
//     await withTaskExecutorPreference(session.fwExecutor) { ... try await session.data(for: request) ... }
//
// is resumed, and starts its next request, on the thread that read the response: no hop to the cooperative
// pool and back (without it, an async request makes two cross-thread wake-ups; README, "Async callers on the
// loop").
//
// Where a job runs:
//   - a session that hosts its connections' loop on its delegate queue (SessionDelegateQueue.swift): inside
//     the loop's slice, which is an operation of that queue. A job enqueued on the slice's own thread (a
//     continuation resumed by a completion handler) runs at the end of the same iteration, after the
//     deliveries that resumed it, never inside one of them; from another thread it is a loop task (a parked
//     loop asks its queue for a slice);
//   - any other session (a caller's delegate queue): as an operation of `delegateQueue`;
//   - once the hosted loop is gone (released with its session) or stopped, as an operation of `delegateQueue`
//     too: a job is never dropped.
// Either way `OperationQueue.current` is the session's delegate queue while a job runs, as in its callbacks,
// and the same rule holds: code that blocks there holds up the session's deliveries (and, hosted, its I/O).

/// A task executor that runs jobs on a session's delegate queue, where its completion handlers run
/// (`URLSession.fwExecutor`; an FWNetworking addition).
///
/// Prefer it for async code that makes many small requests one after another on one session: each `await`
/// of `data(for:)` then resumes on the thread that read the response and the next request is written from
/// there, as a completion handler's would be, instead of hopping to Swift's cooperative pool and back.
/// Jobs run one at a time when the delegate queue is serial (the session's own queue is), so do not block in
/// them: on a session that makes its own queue, a job that blocks until another request of that session ends
/// waits forever, since that request is read by the queue the job holds.
public final class URLSessionExecutor: TaskExecutor {
    /// Where jobs run when the session's loop is not hosted, or no longer runs.
    private let queue: OperationQueue
    /// The loop the delegate queue hosts; weak, so that an executor kept after its session holds no loop.
    private weak let hostedLoop: EventLoop?

    init(queue: OperationQueue, hostedLoop: EventLoop?) {
        self.queue = queue
        self.hostedLoop = hostedLoop
    }

    /// Runs `job` on the session's delegate queue (the file's header says where exactly).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let loop = hostedLoop, loop.inEventLoop {
            return loop.atEndOfIteration { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
        run { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `work` inside an operation of the delegate queue: as a task of the hosted loop, whose slices are that
    /// queue's operations (no operation of its own, no thread hand-off), else — no hosted loop, or one gone or
    /// stopped — as an operation.
    func run(_ work: @escaping @Sendable () -> Void) {
        if let loop = hostedLoop, loop.execute(work) { return }
        queue.addOperation(work)
    }
}

extension URLSession {
    /// A task executor that runs jobs on this session's delegate queue, where its completion handlers run
    /// (an FWNetworking addition; `URLSessionExecutor`). With `withTaskExecutorPreference(session.fwExecutor)`
    /// the async API resumes its caller there, without a hop to Swift's cooperative pool.
    public var fwExecutor: URLSessionExecutor {
        executor
    }
}
