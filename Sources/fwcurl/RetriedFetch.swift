import Foundation
import FWNetworking

// MARK: - RetriedFetch

/// `--retry`: one URL fetched as the attempts of the session manager's retrying request builder
/// (`URLSessionManager.dataTask(requestBuilder:retryCount:...)`).
///
/// Every attempt is a fresh request with a fresh plan (so `-C -` continues from what the file holds now,
/// an `-o` file starts over, and `-T` reopens its file) and a fresh `Transfer` as the task's own
/// delegate, which writes the body as usual and reports its result here. The builder asks `decide`
/// whether to retry (curl's rules, `RetryOptions`), waits, and ends with the last attempt; the fetch's
/// result is that attempt's, with the attempts counted. Bodies meant for stdout are held until the last
/// attempt, so a retried error page is never printed.
///
/// No lock: `state` belongs to `queue`, the manager's completion queue, where the builder calls the
/// request builder, the task handler, `decide` and the completion (the first attempt is made there too).
final class RetriedFetch: @unchecked Sendable { // `state`: `queue` only (see above)
    /// What one retried fetch ended with.
    struct Outcome {
        var result: FetchResult
        var attempts: Int
        var seconds: Double
    }

    private struct State {
        var plan: TransferPlan?
        var result: FetchResult?
        var retries = 0
    }

    let queue: DispatchQueue
    private let manager: URLSessionManager
    private let options: Options
    private let index: Int
    private let makeTrace: @Sendable () -> FetchTrace
    private let start = ProcessInfo.processInfo.systemUptime
    private var state = State()

    init(manager: URLSessionManager, queue: DispatchQueue, options: Options, index: Int,
         makeTrace: @escaping @Sendable () -> FetchTrace) {
        self.manager = manager
        self.queue = queue
        self.options = options
        self.index = index
        self.makeTrace = makeTrace
    }

    /// Runs the attempts; `first` is the request already checked for the first attempt.
    func run(first: URLRequest) async -> Outcome {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                let task = manager.dataTask(
                    requestBuilder: { self.nextRequest(fallback: first) }, retryCount: options.retry.count,
                    retryInterval: options.retry.delay ?? 0, timeoutInterval: options.retry.maxTime ?? 0,
                    shouldRetry: { response, _, error, decide in self.decide(response, error, decide) },
                    taskHandler: { task in self.attach(to: task) },
                    completionHandler: { response, _, _ in continuation.resume(returning: self.finish(response)) })
                task.resume()
            }
        }
    }

    // MARK: Attempts (queue)

    /// The request of the next attempt, with its plan kept for the task handler.
    private func nextRequest(fallback: URLRequest) -> URLRequest {
        var plan = options.plan(forURLAt: index)
        if case .standardOutput = plan.destination { plan.destination = .memory }
        state.plan = plan
        var request = (try? options.request(forURLAt: index, resumeOffset: plan.resumeOffset)) ?? fallback
        if let file = options.uploadFile {
            request.httpBodyStream = InputStream(fileAtPath: file)
            request.setValue("\(OutputFile.size(atPath: file))", forHTTPHeaderField: "Content-Length")
        }
        return request
    }

    /// Makes the attempt's `Transfer` the task's delegate.
    private func attach(to task: URLSessionDataTask) {
        guard let plan = state.plan else { return }
        task.delegate = Transfer(plan: plan, trace: makeTrace()) { result in
            self.queue.async { self.state.result = result }
        }
    }

    /// curl's decision for an attempt that ended with `response` and `error`.
    private func decide(_ response: URLResponse, _ error: (any Error)?, _ decide: @escaping @Sendable (Bool) -> Void) {
        guard let problem = options.retry.problem(response: response, error: error) else { return decide(false) }
        state.retries += 1
        // The builder itself waits for `--retry-delay` and for a Retry-After; the doubling wait is here.
        let retryAfter = Self.retryAfter(response)
        let wait = retryAfter.map { $0 ?? 0 } ?? options.retry.wait(beforeRetry: state.retries)
        if let maxTime = options.retry.maxTime, elapsed + wait >= maxTime { return decide(false) }
        if !options.silent {
            // As curl counts: the retries left, this one included.
            let left = options.retry.count - state.retries + 1
            let when = retryAfter != nil && wait == 0 ? "when the server's Retry-After says"
                : "in \(Self.format(wait)) seconds"
            let retries = "\(left) \(left == 1 ? "retry" : "retries") left"
            Terminal.error("Warning: Problem : \(problem). Will retry \(when). \(retries).")
        }
        guard options.retry.delay == nil, retryAfter == nil else { return decide(true) }
        queue.asyncAfter(deadline: .now() + wait) { decide(true) }
    }

    /// The last attempt's result, with the totals the builder left on its response.
    private func finish(_ response: URLResponse) -> Outcome {
        let result = state.result ?? .failure(URLError(.unknown), record: TransferRecord(trustMode: "default"))
        return Outcome(result: result, attempts: manager.requestTotalCount(for: response),
                       seconds: manager.requestTotalTime(for: response))
    }

    // MARK: Helpers

    private var elapsed: Double { ProcessInfo.processInfo.systemUptime - start }

    /// A 429 or 503 response's `Retry-After` (which the builder honours): `.some(seconds)` when it is a
    /// number, `.some(nil)` for a date; nil without one.
    private static func retryAfter(_ response: URLResponse) -> Double?? {
        guard let http = response as? HTTPURLResponse, [429, 503].contains(http.statusCode),
              let value = http.value(forHTTPHeaderField: "Retry-After") else { return nil }
        return .some(Double(value.trimmingCharacters(in: .whitespaces)).map { max(0, $0) })
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}

// MARK: - Fetching with retries

extension RetriedFetch {
    /// The session manager `--retry` fetches through: it serializes nothing (fwcurl's transfers write the
    /// bodies), completes on a queue of its own, and reopens a `-T` file when a body must be sent again.
    static func manager(_ configuration: URLSessionConfiguration, options: Options) -> URLSessionManager {
        let manager = URLSessionManager(sessionConfiguration: configuration)
        let serializer = HTTPResponseSerializer()
        serializer.acceptableStatusCodes = nil
        manager.responseSerializer = serializer
        manager.completionQueue = DispatchQueue(label: "fwcurl.retry")
        if let file = options.uploadFile {
            manager.taskNeedNewBodyStream = { _, _ in InputStream(fileAtPath: file) }
        }
        return manager
    }

    /// Fetches the URL at `index` with retries; `-v` tells how many attempts it took. A body held for
    /// stdout is written once the last attempt ended.
    static func fetch(_ request: URLRequest, index: Int, options: Options, manager: URLSessionManager,
                      makeTrace: @escaping @Sendable () -> FetchTrace) async -> FetchResult {
        let queue = manager.completionQueue ?? DispatchQueue(label: "fwcurl.retry")
        let fetch = RetriedFetch(manager: manager, queue: queue, options: options, index: index, makeTrace: makeTrace)
        let outcome = await fetch.run(first: request)
        if options.verbose {
            let attempts = "\(outcome.attempts) attempt\(outcome.attempts == 1 ? "" : "s")"
            Terminal.error("* \(attempts) in \(String(format: "%.2f", outcome.seconds)) s")
        }
        if !options.json, index >= options.outputFiles.count, case .response(_, let body, _) = outcome.result {
            Terminal.output(body)
        }
        return outcome.result
    }
}
