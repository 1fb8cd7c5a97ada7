import Foundation
import FWTransport
import FWWire

// MARK: - Delivery
//
// Events reach a task on a loop thread (from the transport) or on the caller's thread (cancel). They
// are queued under the task's lock and delivered on the session's delegate queue by at most one drain
// at a time, so a task's messages arrive in order even on a concurrent delegate queue. Two things
// hold delivery: `suspend()`, and a data delegate that has not yet answered `didReceive response`.
// No delegate is ever called with the lock held.

/// One thing that happened to a task.
enum TaskEvent {
    /// From the transport.
    case transport(TransportEvent)
    /// The session layer failed the task before or instead of the transport.
    case fail(URLError)
}

/// A task's undelivered events and what holds them.
struct DeliveryQueue {
    /// Why delivery waits.
    enum Hold: Hashable {
        case suspended
        case awaitingDisposition
        case awaitingRedirectDecision
    }

    var holds: Set<Hold> = []
    private var events: [TaskEvent] = []
    private var head = 0
    private var isDraining = false

    mutating func append(_ event: TaskEvent) {
        events.append(event)
    }

    /// True when the caller must schedule a drain (and is now the only one draining).
    mutating func claimDrain() -> Bool {
        guard !isDraining, holds.isEmpty, head < events.count else { return false }
        isDraining = true
        return true
    }

    /// The next event for the drain, or nil (and the drain stops) when held or empty.
    mutating func nextForDrain() -> TaskEvent? {
        guard holds.isEmpty, head < events.count else {
            isDraining = false
            return nil
        }
        let event = events[head]
        head += 1
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        }
        return event
    }
}

extension URLSessionTask: TransportTaskDelegate {
    /// Called by the transport on a loop thread.
    public func transportTask(_ id: RequestID, didReceive event: TransportEvent) {
        enqueue(.transport(event))
    }

    func enqueue(_ event: TaskEvent) {
        let schedule = guarded.withLock { state -> Bool in
            state.deliveries.append(event)
            return state.deliveries.claimDrain()
        }
        if schedule { scheduleDrain() }
    }

    /// Lifts the `suspended` hold.
    func releaseDelivery() {
        let schedule = guarded.withLock { state -> Bool in
            state.deliveries.holds.remove(.suspended)
            return state.deliveries.claimDrain()
        }
        if schedule { scheduleDrain() }
    }

    private func scheduleDrain() {
        session.delegateQueue.addOperation { self.drain() }
    }

    /// Runs on the delegate queue.
    private func drain() {
        while let event = guarded.withLock({ $0.deliveries.nextForDrain() }) {
            handle(event)
        }
    }

    // MARK: Handling one event (delegate queue, no lock held)

    private var taskDelegate: (any URLSessionTaskDelegate)? {
        delegate ?? (session.delegate as? any URLSessionTaskDelegate)
    }

    private var traceDelegate: (any URLSessionTaskTraceDelegate)? {
        taskDelegate as? any URLSessionTaskTraceDelegate
    }

    private func handle(_ event: TaskEvent) {
        let (ending, following) = guarded.withLock {
            ([.canceling, .completed].contains($0.lifecycle.publicState), $0.followingRedirect != nil)
        }
        switch event {
        case .fail, .transport(.end), .transport(.failed):
            break
        case .transport(.head), .transport(.body), .transport(.encodedBodyBytes), .transport(.informational):
            // After cancel() (or the completion) nothing but the completion is delivered; the rest of a
            // redirect being followed is not delivered at all.
            if ending || following { return }
        case .transport:
            if ending { return }
        }
        if following, case .transport(let transportEvent) = event, transportEvent.isTerminal {
            endRedirectHop(transportEvent)
            return
        }
        switch event {
        case .fail(let error):
            finish(error: error)
        case .transport(.connected(let info)):
            if let trace = taskDelegate as? any URLSessionTaskTraceDelegate {
                trace.urlSession(session, task: self, didUseConnectionTo: info.remoteAddress, reused: info.isReused)
            }
        case .transport(.headSent(let bytes)):
            if let trace = taskDelegate as? any URLSessionTaskTraceDelegate {
                trace.urlSession(session, task: self, didSendRequestHead: Data(bytes))
            }
        case .transport(.wireWrite(let bytes)):
            traceDelegate?.urlSession(session, task: self, didWriteBytes: Data(bytes))
        case .transport(.wireRead(let bytes)):
            traceDelegate?.urlSession(session, task: self, didReadBytes: Data(bytes))
        case .transport(.metrics(let metrics)):
            recordTransaction(metrics)
        case .transport(.informational):
            break
        case .transport(.head(let head)):
            receivedHead(head)
        case .transport(.body(let bytes)):
            receivedBody(bytes)
        case .transport(.encodedBodyBytes(let count)):
            guarded.withLock { state in
                state.countOfBytesReceived += Int64(count)
                state.bodyIsEncoded = true
            }
        case .transport(.end(let trailers)):
            if !trailers.isEmpty, let trace = taskDelegate as? any URLSessionTaskTraceDelegate {
                let fields = trailers.map { (name: $0.name, value: $0.value) }
                trace.urlSession(session, task: self, didReceiveTrailers: fields)
            }
            finish(error: nil)
        case .transport(.failed(let error)):
            finish(error: URLError(error, url: currentRequest?.url))
        }
    }

    private func receivedHead(_ head: HTTPResponseHead) {
        if let trace = taskDelegate as? any URLSessionTaskTraceDelegate {
            trace.urlSession(session, task: self, didReceiveResponseHead: head.wireBytes)
        }
        guard let request = currentRequest, let url = request.url else { return }
        let response = HTTPURLResponse(url: url, head: head)
        let redirects = guarded.withLock { state -> Int in
            state.hopResponse = response
            return state.redirectCount
        }
        if let next = RedirectPolicy.nextRequest(after: response, from: request) {
            guard redirects < RedirectPolicy.maxRedirects else {
                tooManyRedirects(url: url)
                return
            }
            guard let delegate = taskDelegate else {
                decideRedirect(next, response: response)
                return
            }
            guarded.withLock { _ = $0.deliveries.holds.insert(.awaitingRedirectDecision) }
            delegate.urlSession(session, task: self, willPerformHTTPRedirection: response, newRequest: next) { chosen in
                // The delegate may answer on any thread, later: decide on the delegate queue.
                self.session.delegateQueue.addOperation { self.decideRedirect(chosen, response: response) }
            }
            return
        }
        deliverResponse(response)
    }

    /// Makes `response` the task's response and tells the data delegate (which may hold delivery).
    private func deliverResponse(_ response: HTTPURLResponse) {
        guarded.withLock { state in
            state.response = response
            state.countOfBytesExpectedToReceive = response.expectedContentLength
        }
        guard case .delegate = behaviour, let dataTask = self as? URLSessionDataTask,
              let dataDelegate = taskDelegate as? any URLSessionDataDelegate else { return }
        guarded.withLock { _ = $0.deliveries.holds.insert(.awaitingDisposition) }
        dataDelegate.urlSession(session, dataTask: dataTask, didReceive: response) { disposition in
            self.apply(disposition)
        }
    }

    // MARK: Redirects

    /// Follow `chosen`, or (nil) deliver the 3xx itself as the response; then let delivery go on.
    private func decideRedirect(_ chosen: URLRequest?, response: HTTPURLResponse) {
        if let chosen {
            guarded.withLock { $0.followingRedirect = chosen }
        } else {
            deliverResponse(response)
        }
        let schedule = guarded.withLock { state -> Bool in
            state.deliveries.holds.remove(.awaitingRedirectDecision)
            return state.deliveries.claimDrain()
        }
        if schedule { scheduleDrain() }
    }

    /// The hop whose 3xx is being followed ended: send the next request. A hop that was cancelled or
    /// timed out ends the task instead; one that merely lost the rest of its 3xx body is followed.
    private func endRedirectHop(_ event: TransportEvent) {
        if case .failed(let error) = event, error.isCancelled || error.isTimedOut || error.isShutDown {
            finish(error: URLError(error, url: currentRequest?.url))
            return
        }
        let next = guarded.withLock { state -> URLRequest? in
            let next = state.followingRedirect
            state.followingRedirect = nil
            state.redirectCount += 1
            state.currentRequest = next
            state.hopResponse = nil
            return next
        }
        if let next { session.send(self, next) }
    }

    private func tooManyRedirects(url: URL) {
        let requestID = guarded.withLock { $0.requestID }
        finish(error: URLError(.httpTooManyRedirects, url: url,
                               description: "more than \(RedirectPolicy.maxRedirects) redirects"))
        if let requestID { session.transport?.cancel(requestID) }
    }

    // MARK: Dispositions

    private func apply(_ disposition: URLSession.ResponseDisposition) {
        switch disposition {
        case .allow:
            break
        case .cancel, .becomeDownload:
            // Download tasks do not exist yet, so `.becomeDownload` cannot be honoured: stop the load.
            cancel()
        }
        let schedule = guarded.withLock { state -> Bool in
            state.deliveries.holds.remove(.awaitingDisposition)
            return state.deliveries.claimDrain()
        }
        if schedule { scheduleDrain() }
    }

    private func receivedBody(_ bytes: [UInt8]) {
        guarded.withLock { state in
            // countOfBytesReceived counts bytes as received: for an encoded body, `encodedBodyBytes` did.
            if !state.bodyIsEncoded { state.countOfBytesReceived += Int64(bytes.count) }
        }
        switch behaviour {
        case .dataCompletion:
            guarded.withLock { $0.body.append(contentsOf: bytes) }
        case .delegate:
            guard let dataTask = self as? URLSessionDataTask,
                  let dataDelegate = taskDelegate as? any URLSessionDataDelegate else { return }
            dataDelegate.urlSession(session, dataTask: dataTask, didReceive: Data(bytes))
        }
    }

    private func finish(error: URLError?) {
        let (action, error, body, response, timer) = guarded.withLock { state in
            // Once cancel() was called the task completes with `cancelled`, whatever else raced it.
            let error = state.lifecycle.publicState == .canceling && error?.code != .cancelled
                ? URLError(.cancelled, url: state.currentRequest?.url, description: "cancelled") : error
            let action = state.lifecycle.finish()
            if action == .complete { state.error = error }
            let timer = state.resourceTimer
            state.resourceTimer = nil
            return (action, error, state.body, state.response, timer)
        }
        guard action == .complete else { return }
        timer?.item.cancel()
        if let metrics = collectMetrics() {
            taskDelegate?.urlSession(session, task: self, didFinishCollecting: metrics)
        }
        switch behaviour {
        case .dataCompletion(let completion):
            if let error { completion(nil, nil, error) } else { completion(body, response, nil) }
        case .delegate:
            taskDelegate?.urlSession(session, task: self, didCompleteWithError: error)
        }
        session.taskDidComplete(self)
    }
}

extension URLSessionTask {
    /// One transaction for the current hop, from its transport metrics.
    fileprivate func recordTransaction(_ metrics: TransportMetrics) {
        guarded.withLock { state in
            guard let request = state.currentRequest, let clock = state.metricsClock else { return }
            state.transactions.append(URLSessionTaskTransactionMetrics(
                request: request, response: state.hopResponse, fetchStart: state.hopStart ?? state.fetchStart ?? Date(),
                transport: metrics, clock: clock, decodedBodyBytes: metrics.responseBodyBytes))
        }
    }

    /// The task's metrics: a transaction per request sent (a request that never reached a connection
    /// still gets one, without network times); nil when the task never started.
    fileprivate func collectMetrics() -> URLSessionTaskMetrics? {
        guarded.withLock { state -> URLSessionTaskMetrics? in
            guard let fetchStart = state.fetchStart, let clock = state.metricsClock,
                  let request = state.currentRequest else { return nil }
            var transactions = state.transactions
            if transactions.isEmpty {
                transactions.append(URLSessionTaskTransactionMetrics(
                    request: request, response: state.response, fetchStart: state.hopStart ?? fetchStart,
                    transport: nil, clock: clock, decodedBodyBytes: 0))
            }
            return URLSessionTaskMetrics(transactionMetrics: transactions,
                                         taskInterval: DateInterval(start: fetchStart, end: max(fetchStart, Date())),
                                         redirectCount: state.redirectCount)
        }
    }
}

extension HTTPResponseHead {
    /// The head re-serialised with CRLF line ends: the bytes received, up to whitespace the parser
    /// trimmed and bare-LF line ends.
    var wireBytes: Data {
        var bytes = Data("\(version) \(status) ".utf8)
        bytes.append(contentsOf: reason.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        bytes.append(contentsOf: [13, 10])
        for index in 0..<headers.count {
            bytes.append(contentsOf: headers.rawName(at: index))
            bytes.append(contentsOf: [58, 32])
            bytes.append(contentsOf: headers.rawValue(at: index))
            bytes.append(contentsOf: [13, 10])
        }
        bytes.append(contentsOf: [13, 10])
        return bytes
    }
}
