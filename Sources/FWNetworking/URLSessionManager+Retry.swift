// URLSessionManager+Retry: the retrying request builder of the seeds
// (`dataTaskWithRequestBuilder:retryCount:retryInterval:timeoutInterval:shouldRetry:taskHandler:...`) and
// the request totals it leaves on the final response.
//
// One request, several attempts (`RetryingRequest`): every attempt is a data task made from a new request
// (the builder is called each time, so a request can be signed again), and when it ends `shouldRetry`
// decides, asynchronously, whether another one starts:
//
//   attempt n ends ──cancelled, or the session invalidated──────────▶ completion (no retry)
//        │ retries left?  no ────────────────────────────────────────▶ completion
//        ▼ yes
//   shouldRetry(response, object, error, decide) ──decide(false)──────▶ completion
//        │ decide(true)          (default: an error, or a status outside 200...299)
//        ▼
//   wait max(retryInterval, Retry-After of a 429/503) ──would end past the deadline──▶ completion at once
//        ▼                       (no deadline: Retry-After counts for at most `retryAfterCap`, 60 s)
//   attempt n + 1 (taskHandler sees it, then it is resumed)
//
// The deadline (`timeoutInterval` > 0, from the call) only keeps new attempts from starting: an attempt
// that runs is not cut short, and no wait (Retry-After included) runs past it. The completion handler
// gets the last attempt's response, object and error; `requestTotalCount(for:)` and
// `requestTotalTime(for:)` of that response say how many attempts were made and how long they took from
// the call to the end.

import FWLoop
import Foundation

// MARK: - The retrying request builder

extension URLSessionManager {
    /// Decides whether another attempt starts: call `decisionHandler` exactly once, from any thread, now
    /// or later (later calls are ignored).
    public typealias ShouldRetryHandler = @Sendable (
        _ response: URLResponse, _ responseObject: Any?, _ error: (any Error)?,
        _ decisionHandler: @escaping @Sendable (Bool) -> Void
    ) -> Void

    /// A data task that is retried: at most `retryCount` more attempts, each made from a new
    /// `requestBuilder()` request, at least `retryInterval` seconds after the previous one ended (longer
    /// when a 429 or 503 response says `Retry-After`), none starting once `timeoutInterval` seconds (when
    /// > 0) have passed since this call.
    ///
    /// `shouldRetry` decides after each attempt (called on the completion queue). Without it the seed's
    /// default "checks statusCode and error": an attempt is retried when it ended with an error (the
    /// task's or the serializer's) or with an HTTP status outside 200...299 — as FWFramework's Swift port
    /// reads it. A `Retry-After` (429, 503) lengthens the wait to what it asks, unless the next attempt
    /// would then start at or after `timeoutInterval`: the request then ends at once with that response.
    /// With `timeoutInterval` 0 a `Retry-After` counts for at most 60 seconds. `taskHandler` gets every
    /// attempt's task before it runs: the first one during this call, the others on the completion queue.
    /// Cancelling an attempt's task ends the request with that cancellation, without asking `shouldRetry`;
    /// so does an invalidated session (`invalidateSessionCancelingTasks(_:resetSession: false)`), with the
    /// attempt's error. `completionHandler` gets the last attempt's outcome on the completion queue;
    /// `requestTotalCount(for:)` and `requestTotalTime(for:)` of its response tell the attempts and the time.
    ///
    /// - Returns: The first attempt's task, suspended: call `resume()` (later attempts start by themselves).
    public func dataTask(requestBuilder: @escaping @Sendable () -> URLRequest, retryCount: Int,
                         retryInterval: TimeInterval, timeoutInterval: TimeInterval,
                         shouldRetry: ShouldRetryHandler? = nil,
                         taskHandler: (@Sendable (URLSessionDataTask) -> Void)? = nil,
                         uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil,
                         completionHandler: CompletionHandler? = nil) -> URLSessionDataTask {
        let request = RetryingRequest(
            manager: self, builder: requestBuilder,
            plan: .init(retryCount: max(0, retryCount), retryInterval: max(0, retryInterval),
                        timeoutInterval: timeoutInterval),
            handlers: .init(shouldRetry: shouldRetry, taskHandler: taskHandler, uploadProgress: uploadProgress,
                            downloadProgress: downloadProgress, completion: completionHandler))
        return request.attempt(1)
    }

    // MARK: Request totals

    /// Records how many attempts led to `response` (the retrying builder sets it on its final response).
    public func setRequestTotalCount(_ totalCount: Int, for response: URLResponse) {
        ResponseTotals.count.set(totalCount, for: response)
    }

    /// How many attempts led to `response`: 1 plus the retries for the retrying builder's final response;
    /// 0 when nobody recorded it.
    public func requestTotalCount(for response: URLResponse) -> Int {
        ResponseTotals.count.value(for: response) ?? 0
    }

    /// Records how long the attempts that led to `response` took, in seconds.
    public func setRequestTotalTime(_ totalTime: TimeInterval, for response: URLResponse) {
        ResponseTotals.time.set(totalTime, for: response)
    }

    /// How long the attempts that led to `response` took, in seconds, from the builder's call to the final
    /// attempt's end (the waits included); 0 when nobody recorded it.
    public func requestTotalTime(for response: URLResponse) -> TimeInterval {
        ResponseTotals.time.value(for: response) ?? 0
    }
}

// MARK: - RetryingRequest

/// The attempts of one retrying request (see the file's opening comment). Sendable: everything is
/// immutable except the decision flags, which are `LockedBox`es.
final class RetryingRequest: Sendable {
    /// How often, how far apart, and until when.
    struct Plan: Sendable {
        var retryCount: Int
        var retryInterval: TimeInterval
        var timeoutInterval: TimeInterval
    }

    /// The caller's blocks.
    struct Handlers: Sendable {
        var shouldRetry: URLSessionManager.ShouldRetryHandler?
        var taskHandler: (@Sendable (URLSessionDataTask) -> Void)?
        var uploadProgress: URLSessionManager.ProgressHandler?
        var downloadProgress: URLSessionManager.ProgressHandler?
        var completion: URLSessionManager.CompletionHandler?
    }

    private let manager: URLSessionManager
    private let builder: @Sendable () -> URLRequest
    private let plan: Plan
    private let handlers: Handlers
    private let start = ContinuousClock.now

    init(manager: URLSessionManager, builder: @escaping @Sendable () -> URLRequest, plan: Plan, handlers: Handlers) {
        self.manager = manager
        self.builder = builder
        self.plan = plan
        self.handlers = handlers
    }

    /// Makes attempt `number` (from 1) and shows it to the task handler; the caller resumes it.
    func attempt(_ number: Int) -> URLSessionDataTask {
        let task = manager.dataTask(request: builder(), uploadProgress: handlers.uploadProgress,
                                    downloadProgress: handlers.downloadProgress) { response, object, error in
            self.attemptEnded(number, Outcome(response: response, object: object, error: error, userInfo: [:]))
        }
        handlers.taskHandler?(task)
        return task
    }

    /// Attempt `number` ended (completion queue).
    private func attemptEnded(_ number: Int, _ outcome: Outcome) {
        guard (outcome.error as? URLError)?.code != .cancelled, number <= plan.retryCount,
              !manager.sessionIsInvalidated else {
            return finish(outcome, attempts: number)
        }
        let decided = LockedBox(false)
        let decide: @Sendable (Bool) -> Void = { retry in
            let first = decided.withLock { decided -> Bool in
                defer { decided = true }
                return !decided
            }
            if first { self.decided(retry, after: number, outcome) }
        }
        if let shouldRetry = handlers.shouldRetry {
            shouldRetry(outcome.response, outcome.object, outcome.error, decide)
        } else {
            decide(Self.isFailure(outcome))
        }
    }

    /// `shouldRetry` answered (any thread).
    private func decided(_ retry: Bool, after number: Int, _ outcome: Outcome) {
        let wait = Self.wait(retryInterval: plan.retryInterval, retryAfter: Self.retryAfter(outcome.response),
                             timeoutInterval: plan.timeoutInterval, elapsed: elapsed)
        guard retry, let delay = wait else {
            manager.onCompletionQueue { self.finish(outcome, attempts: number) }
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            self.manager.onCompletionQueue {
                guard !self.isPastDeadline(after: 0) else { return self.finish(outcome, attempts: number) }
                self.attempt(number + 1).resume()
            }
        }
    }

    /// Ends the request with `outcome`, recording the totals on its response (completion queue).
    private func finish(_ outcome: Outcome, attempts: Int) {
        manager.setRequestTotalCount(attempts, for: outcome.response)
        manager.setRequestTotalTime(elapsed, for: outcome.response)
        handlers.completion?(outcome.response, outcome.object, outcome.error)
    }

    // MARK: Time

    /// Seconds since the builder was called.
    private var elapsed: TimeInterval {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// Whether an attempt started `delay` seconds from now would start at or after the deadline.
    private func isPastDeadline(after delay: TimeInterval) -> Bool {
        plan.timeoutInterval > 0 && elapsed + delay >= plan.timeoutInterval
    }

    /// The most a `Retry-After` lengthens a wait when there is no deadline (`timeoutInterval` 0), in seconds:
    /// a server asking for longer is retried after this long (the retry count still bounds the attempts).
    static let retryAfterCap: TimeInterval = 60

    /// The wait before the next attempt: `retryInterval`, or the `Retry-After` when longer (capped by
    /// `retryAfterCap` without a deadline); nil when the attempt would start at or after the deadline, which
    /// ends the request at once rather than waiting past it.
    static func wait(retryInterval: TimeInterval, retryAfter: TimeInterval?, timeoutInterval: TimeInterval,
                     elapsed: TimeInterval) -> TimeInterval? {
        let asked = retryAfter.map { timeoutInterval > 0 ? $0 : min($0, retryAfterCap) } ?? 0
        let wait = max(retryInterval, asked)
        guard timeoutInterval <= 0 || elapsed + wait < timeoutInterval else { return nil }
        return wait
    }

    // MARK: The default decision

    /// The default `shouldRetry`, seed 000's "check statusCode and error": the attempt failed — it has an
    /// error, or an HTTP status outside 200...299. (A response without a status, from a URL protocol for
    /// another scheme, counts by its error alone.)
    static func isFailure(_ outcome: Outcome) -> Bool {
        if outcome.error != nil { return true }
        guard let status = (outcome.response as? HTTPURLResponse)?.statusCode else { return false }
        return !(200..<300).contains(status)
    }

    /// The wait a 429 or 503 response asks for in `Retry-After` (seconds, or an HTTP date), if any.
    static func retryAfter(_ response: URLResponse) -> TimeInterval? {
        guard let http = response as? HTTPURLResponse, [429, 503].contains(http.statusCode),
              let value = http.value(forHTTPHeaderField: "Retry-After")?.trimmingCharacters(in: .whitespaces)
        else { return nil }
        if let seconds = Int(value) { return TimeInterval(max(0, seconds)) }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return format.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }
}
