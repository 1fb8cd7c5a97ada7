import Foundation
import FWNetworking

// MARK: - Transfer

/// The task delegate of one URL: owns the task's output (a file opened when the final response arrives,
/// stdout, or memory), streams the body into it piece by piece as `didReceive data` delivers it (constant
/// memory: the session stops reading while deliveries are backlogged), decides redirects (`-L`,
/// `--max-redirs`) and what a response to a `-C` range request means, and draws the progress meters.
/// Trace, challenge and metrics messages go to `trace` (see `Transfer+Trace.swift`).
///
/// No lock: `state` belongs to the session's serial delegate queue. Every delegate message arrives there,
/// and `run` creates and resumes the task from there too; `withState` checks it in debug builds.
final class Transfer: NSObject, URLSessionDataDelegate, URLSessionTaskTraceDelegate,
    @unchecked Sendable { // `state`: the session's serial delegate queue only (see above)
    /// The trace and TLS policy of this URL.
    let trace: FetchTrace
    /// What to do with the response, and the answers to 401 challenges.
    let plan: TransferPlan
    /// Hears the result of a transfer that is one attempt of a retried fetch (`RetriedFetch`).
    private let onResult: (@Sendable (FetchResult) -> Void)?
    private var state: State

    struct State {
        var continuation: CheckedContinuation<FetchResult, Never>?
        /// Trailers, TLS outcome and trust refusal, for the result.
        var record: TransferRecord
        var sink = Sink.pending
        /// `-i`: response heads not yet written (they go out with the final response).
        var heads = Data()
        /// The body, for `.memory`.
        var body = Data()
        /// Body bytes taken so far (for `--max-filesize`).
        var bodyBytes: Int64 = 0
        var redirectsFollowed = 0
        var exceededRedirects = false
        /// Why fwcurl itself stopped the task (it then completes as cancelled).
        var failure: URLError?
        var uploadMeter: Meter?
        var downloadMeter: Meter?
        /// The 401 whose challenge `-u` refused: a further scheme it offers is refused too.
        var refusedAuthentication: URLResponse?
    }

    /// Where body bytes go.
    enum Sink {
        /// No final response yet: nothing is written.
        case pending
        /// A `-C` transfer with nothing left to fetch (416): the body is dropped.
        case discard
        case memory
        case file(OutputFile)
    }

    /// A progress meter and what it counts.
    struct Meter {
        var meter: ProgressMeter
        var bytes: Int64
        var total: Int64
    }

    init(plan: TransferPlan, trace: FetchTrace, onResult: (@Sendable (FetchResult) -> Void)? = nil) {
        self.plan = plan
        self.trace = trace
        self.onResult = onResult
        self.state = State(record: TransferRecord(trustMode: trace.trustMode))
    }

    /// Runs `request` (uploading `uploadFile` when given) on `session` to its end. The task starts on the
    /// session's delegate queue, so `state` is never touched elsewhere; `queued` runs once that start is
    /// queued (the queue is serial: starts queued one after the other go out in that order).
    func run(_ request: URLRequest, uploading uploadFile: String?, on session: URLSession,
             queued: (@Sendable () -> Void)? = nil) async -> FetchResult {
        await withCheckedContinuation { continuation in
            defer { queued?() }
            session.delegateQueue.addOperation { [self] in
                withState(session) { $0.continuation = continuation }
                let task: URLSessionTask = if let uploadFile {
                    session.uploadTask(with: request, fromFile: URL(fileURLWithPath: uploadFile))
                } else {
                    session.dataTask(with: request)
                }
                task.delegate = self
                task.resume()
            }
        }
    }

    /// Runs `body` on the state; only on `session`'s delegate queue (checked in debug builds).
    func withState<R>(_ session: URLSession, _ body: (inout State) -> R) -> R {
        assert(OperationQueue.current === session.delegateQueue, "Transfer state touched off the delegate queue")
        return body(&state)
    }

    // MARK: Redirects and the response

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let follow = withState(session) { state -> Bool in
            guard plan.followRedirects else { return false }
            guard plan.maxRedirects < 0 || state.redirectsFollowed < plan.maxRedirects else {
                state.exceededRedirects = true
                return false
            }
            state.redirectsFollowed += 1
            return true
        }
        completionHandler(follow ? request : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceiveResponseHead head: Data) {
        trace.receivedResponseHead(head)
        if plan.includeHeaders { withState(session) { $0.heads.append(head) } }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let disposition = withState(session) { state -> URLSession.ResponseDisposition in
            Self.finish(&state.uploadMeter)
            if state.exceededRedirects {
                state.failure = URLError(.httpTooManyRedirects,
                                         message: "Maximum (\(plan.maxRedirects)) redirects followed")
                return .cancel
            }
            if plan.failOnHTTPError, (http?.statusCode ?? 0) >= 400 {
                // curl's -f: nothing is written, the body is read to its end (the connection stays usable).
                state.sink = .discard
                return .allow
            }
            if let limit = plan.maxFileSize, response.expectedContentLength > limit {
                state.failure = URLError(.dataLengthExceedsMaximum, message: "Maximum file size exceeded")
                return .cancel
            }
            var mode = OutputFile.Mode.truncate
            if let offset = plan.resumeOffset {
                let contentRange = http?.value(forHTTPHeaderField: "Content-Range")
                switch ResumeOutcome(status: http?.statusCode ?? 0, contentRange: contentRange, offset: offset) {
                case .append:
                    mode = .append
                case .startOver:
                    Terminal.error("fwcurl: the server ignored the range (200, not 206): starting over from byte 0")
                case .alreadyComplete:
                    state.sink = .discard
                    return .allow
                case .refuse(let message):
                    state.failure = URLError(.badServerResponse, message: message)
                    return .cancel
                }
            }
            do throws(URLError) {
                state.sink = try open(mode)
                try Self.write(state.heads, to: &state)
                state.heads = Data()
            } catch {
                state.failure = error
                return .cancel
            }
            if plan.downloadMeter {
                let base = mode == .append ? plan.resumeOffset ?? 0 : 0
                let encoded = (http?.value(forHTTPHeaderField: "Content-Encoding") ?? "identity") != "identity"
                let length = encoded ? -1 : response.expectedContentLength
                state.downloadMeter = Meter(meter: ProgressMeter(now: Self.now), bytes: base,
                                            total: length < 0 ? -1 : base + length)
            }
            return .allow
        }
        completionHandler(disposition)
    }

    /// The sink of the final response.
    private func open(_ mode: OutputFile.Mode) throws(URLError) -> Sink {
        switch plan.destination {
        case .memory: .memory
        case .standardOutput: .file(.standardOutput)
        case .file(let path): .file(try OutputFile.open(path, mode: mode))
        }
    }

    // MARK: Body

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let failed = withState(session) { state -> Bool in
            state.bodyBytes += Int64(data.count)
            if let limit = plan.maxFileSize, state.bodyBytes > limit {
                state.failure = URLError(.dataLengthExceedsMaximum, message: "Maximum file size exceeded")
                return true
            }
            do throws(URLError) {
                try Self.write(data, to: &state)
            } catch {
                state.failure = error
                return true
            }
            if var meter = state.downloadMeter {
                meter.bytes += Int64(data.count)
                if let text = meter.meter.update(bytes: meter.bytes, total: meter.total, now: Self.now) {
                    Terminal.progress(text)
                }
                state.downloadMeter = meter
            }
            return false
        }
        if failed { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        guard plan.uploadMeter else { return }
        withState(session) { state in
            var meter = state.uploadMeter ?? Meter(meter: ProgressMeter(now: Self.now), bytes: 0, total: -1)
            meter.bytes = totalBytesSent
            meter.total = totalBytesExpectedToSend
            if let text = meter.meter.update(bytes: meter.bytes, total: meter.total, now: Self.now) {
                Terminal.progress(text)
            }
            state.uploadMeter = meter
        }
    }

    private static func write(_ data: Data, to state: inout State) throws(URLError) {
        guard !data.isEmpty else { return }
        switch state.sink {
        case .pending, .discard: break
        case .memory: state.body.append(data)
        case .file(let file): try file.write(data)
        }
    }

    // MARK: Completion

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        typealias Ending = (continuation: CheckedContinuation<FetchResult, Never>?, result: FetchResult)
        let (continuation, result) = withState(session) { state -> Ending in
            Self.finish(&state.uploadMeter)
            Self.finish(&state.downloadMeter)
            if case .file(let file) = state.sink { file.close() }
            let result: FetchResult
            if let failure = state.failure {
                result = .failure(failure, record: state.record)
            } else if let error {
                result = .failure(error as? URLError ?? URLError(.unknown), record: state.record)
            } else if let http = task.response as? HTTPURLResponse {
                result = .response(http, body: state.body, record: state.record)
            } else {
                result = .failure(URLError(.badServerResponse), record: state.record)
            }
            defer { state.continuation = nil }
            return (state.continuation, result)
        }
        continuation?.resume(returning: result)
        onResult?(result)
        // Under a session manager (`--retry`) the session's delegate must hear the end of the attempt too.
        let sessionDelegate = session.delegate as? any URLSessionTaskDelegate
        sessionDelegate?.urlSession(session, task: task, didCompleteWithError: error)
    }

    /// Draws `meter`'s final line (if it was drawing) and stops it.
    private static func finish(_ meter: inout Meter?) {
        guard var finished = meter else { return }
        Terminal.progress(finished.meter.finish(bytes: finished.bytes, total: finished.total, now: now))
        meter = nil
    }

    /// Monotonic seconds for the meters.
    private static var now: Double { ProcessInfo.processInfo.systemUptime }
}
