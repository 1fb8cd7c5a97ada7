import Dispatch
import Synchronization

// MARK: - ClosedLoop
//
// A closed-loop load generator: `concurrency` requests are in flight at once, and each completion
// starts the next one, until the amount is used up (a request count, or a deadline after which no new
// request starts and the ones in flight finish). The clock stops at the last completion. Two drivers
// share the bookkeeping: `run` for callback APIs (the next request is started from the completion, as
// a URLSession completion-handler user writes it) and `runAsync` for async/await APIs (N child tasks,
// each awaiting one request after another).

/// What one request produced.
public enum RequestOutcome: Sendable {
    /// A 200 response with this many body bytes.
    case success(bytes: Int)
    /// Anything else; the text says what.
    case failure(String)
}

/// Totals of one closed-loop run.
public struct LoopTotals: Equatable, Sendable {
    /// Requests that succeeded.
    public var completed = 0
    /// Requests that failed.
    public var failed = 0
    /// Body bytes of the successful requests.
    public var bytes = 0
    /// Seconds from the first start to the last completion.
    public var seconds = 0.0
    /// The first failure's description.
    public var firstError: String?

    /// Creates totals from their values.
    public init(completed: Int = 0, failed: Int = 0, bytes: Int = 0, seconds: Double = 0, firstError: String? = nil) {
        self.completed = completed
        self.failed = failed
        self.bytes = bytes
        self.seconds = seconds
        self.firstError = firstError
    }
}

/// Runs requests in a closed loop; see the comment at the top of the file.
public final class ClosedLoop: Sendable {
    private struct State {
        var started = 0
        var inFlight = 0
        var totals = LoopTotals()
    }

    private let amount: Amount
    private let concurrency: Int
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let deadline: ContinuousClock.Instant?
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    /// Prepares a run; the clock starts now.
    public init(concurrency: Int, amount: Amount) {
        self.concurrency = concurrency
        self.amount = amount
        self.start = clock.now
        if case .seconds(let seconds) = amount {
            deadline = start.advanced(by: .milliseconds(Int((seconds * 1000).rounded())))
        } else {
            deadline = nil
        }
    }

    // MARK: Callback APIs

    /// Starts `concurrency` requests with `issue`, which must call its argument exactly once per request
    /// (from any thread), and blocks until the last one completed.
    public func run(issue: @escaping @Sendable (_ complete: @escaping @Sendable (RequestOutcome) -> Void) -> Void)
        -> LoopTotals {
        let next = Next(loop: self, issue: issue)
        for _ in 0..<concurrency where claim() {
            next.start()
        }
        done.wait()
        return totals
    }

    /// Issues one request and, on its completion, the next one.
    private struct Next: Sendable {
        let loop: ClosedLoop
        let issue: @Sendable (_ complete: @escaping @Sendable (RequestOutcome) -> Void) -> Void

        func start() {
            issue { outcome in
                if loop.record(outcome) { start() }
            }
        }
    }

    // MARK: Async APIs

    /// Runs `concurrency` child tasks that each await `request` until the amount is used up.
    public func runAsync(request: @escaping @Sendable () async -> RequestOutcome) async -> LoopTotals {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency where claim() {
                group.addTask {
                    while self.record(await request()) {}
                }
            }
        }
        return totals
    }

    // MARK: Bookkeeping

    /// Reserves the start of one more request; false when the amount is used up.
    private func claim() -> Bool {
        let now = clock.now
        return state.withLock { claimLocked(&$0, now: now) }
    }

    /// Counts a completion and reserves the next request (true: the caller starts it). Signals `done`
    /// when the amount is used up and nothing is in flight any more.
    private func record(_ outcome: RequestOutcome) -> Bool {
        let now = clock.now
        let (next, last) = state.withLock { state -> (Bool, Bool) in
            switch outcome {
            case .success(let bytes):
                state.totals.completed += 1
                state.totals.bytes += bytes
            case .failure(let description):
                state.totals.failed += 1
                if state.totals.firstError == nil { state.totals.firstError = description }
            }
            state.inFlight -= 1
            state.totals.seconds = (now - start) / .seconds(1)
            if claimLocked(&state, now: now) { return (true, false) }
            return (false, state.inFlight == 0)
        }
        if last { done.signal() }
        return next
    }

    private func claimLocked(_ state: inout State, now: ContinuousClock.Instant) -> Bool {
        let allowed = switch amount {
        case .requests(let count): state.started < count
        case .seconds: deadline.map { now < $0 } ?? false
        }
        guard allowed else { return false }
        state.started += 1
        state.inFlight += 1
        return true
    }

    private var totals: LoopTotals {
        state.withLock { $0.totals }
    }
}
