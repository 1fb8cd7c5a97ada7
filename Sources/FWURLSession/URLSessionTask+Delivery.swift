import Foundation
import FWTransport

// MARK: - Delivery
//
// The transport's events are queued in the task's `DeliveryQueue` (see there) and handled here, one at a
// time, on the delegate queue. Handling routes each event to where the task's kind and behaviour want it:
// the data delegate, the collected body, a download file, or an `AsyncBytes` sequence. No delegate is
// ever called with the task's lock held.

extension URLSessionTask: TransportTaskDelegate {
    /// Called by the transport on a loop thread.
    public func transportTask(_ id: RequestID, didReceive event: TransportEvent) {
        enqueue(.transport(event))
    }

    /// Called by the transport on a loop thread: one loop iteration's events, queued under one lock and
    /// drained by one hop to the delegate queue.
    public func transportTask(_ id: RequestID, didReceive events: [TransportEvent]) {
        enqueue(events.map(TaskEvent.transport))
    }

    func enqueue(_ event: TaskEvent) {
        enqueue(CollectionOfOne(event))
    }

    private func enqueue(_ events: some Collection<TaskEvent>) {
        let (schedule, backlogChanged) = guarded.withLock { state -> (Bool, Bool) in
            var changed = false
            for event in events where state.deliveries.append(event) { changed = true }
            return (state.deliveries.claimDrain(), changed)
        }
        if backlogChanged { syncReadingPause() }
        if schedule { scheduleDrain() }
    }

    /// Lifts `hold` and lets delivery go on.
    func release(_ hold: DeliveryQueue.Hold) {
        let schedule = guarded.withLock { state -> Bool in
            state.deliveries.holds.remove(hold)
            return state.deliveries.claimDrain()
        }
        if schedule { scheduleDrain() }
    }

    func hold(_ hold: DeliveryQueue.Hold) {
        guarded.withLock { _ = $0.deliveries.holds.insert(hold) }
    }

    /// Asks the connection to stop or restart reading so it matches what the task wants now: paused while
    /// suspended or backlogged. Calls are serialised by `readingPauseOrder`, so the connection sees them in
    /// the order they were decided.
    func syncReadingPause() {
        readingPauseOrder.withLock {
            let change = guarded.withLock { state -> (RequestID, Bool)? in
                guard let id = state.requestID else { return nil }
                let wanted = state.lifecycle.isSuspended || state.deliveries.isBacklogged
                guard wanted != state.readingPauseSent else { return nil }
                state.readingPauseSent = wanted
                return (id, wanted)
            }
            if let (id, paused) = change { session.transport?.setReadingPaused(paused, for: id) }
        }
    }

    private func scheduleDrain() {
        session.deliveryPump.schedule(self)
    }

    /// Delivers the queued events (delegate queue; `DeliveryPump` runs it).
    func drain() {
        while true {
            let (event, backlogChanged) = guarded.withLock { $0.deliveries.nextForDrain() }
            if backlogChanged { syncReadingPause() }
            guard let event else { return }
            handle(event)
        }
    }

    // MARK: Handling one event (delegate queue, no lock held)

    var taskDelegate: (any URLSessionTaskDelegate)? {
        delegate ?? (session.delegate as? any URLSessionTaskDelegate)
    }

    private var traceDelegate: (any URLSessionTaskTraceDelegate)? {
        taskDelegate as? any URLSessionTaskTraceDelegate
    }

    private func handle(_ event: TaskEvent) {
        let (ending, following, successor) = guarded.withLock {
            ([.canceling, .completed].contains($0.lifecycle.publicState), $0.followingRedirect != nil,
             $0.becameDownload)
        }
        if let successor {
            successor.enqueue(event)
            return
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
            traceDelegate?.urlSession(session, task: self, didUseConnectionTo: info.remoteAddress,
                                      reused: info.isReused)
        case .transport(.headSent(let bytes)):
            traceDelegate?.urlSession(session, task: self, didSendRequestHead: Data(bytes))
        case .transport(.wireWrite(let bytes)):
            traceDelegate?.urlSession(session, task: self, didWriteBytes: Data(bytes))
        case .transport(.wireRead(let bytes)):
            traceDelegate?.urlSession(session, task: self, didReadBytes: Data(bytes))
        case .transport(.bodyBytesSent(let total)):
            reportBodyBytesSent(total)
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
            if !trailers.isEmpty, let trace = traceDelegate {
                let fields = trailers.map { (name: $0.name, value: $0.value) }
                trace.urlSession(session, task: self, didReceiveTrailers: fields)
            }
            finish(error: nil)
        case .transport(.failed(let error)):
            finish(error: URLError(error, url: currentRequest?.url))
        }
    }

    private func receivedHead(_ head: HTTPResponseHead) {
        traceDelegate?.urlSession(session, task: self, didReceiveResponseHead: head.wireBytes)
        guard let request = currentRequest, let url = request.url else { return }
        let response = HTTPURLResponse(url: url, head: head)
        guarded.withLock { $0.hopResponse = response }
        if !considerRedirect(response, from: request) { deliverResponse(response) }
    }

    /// Makes `response` the task's response and hands it to whoever takes the body.
    func deliverResponse(_ response: HTTPURLResponse) {
        guarded.withLock { state in
            state.response = response
            state.countOfBytesExpectedToReceive = response.expectedContentLength
            // A collected body of announced length is allocated once instead of regrown (which peaks at
            // twice the body). A lying Content-Length costs at most `maximumReservation` of address space.
            if case .dataCompletion = behaviour, response.expectedContentLength > 0,
               state.currentRequest?.httpMethod != "HEAD", ![204, 304].contains(response.statusCode) {
                state.body.reserveCapacity(Int(min(response.expectedContentLength, Self.maximumReservation)))
            }
        }
        updateProgress()
        if case .byteStream(let feed) = behaviour { feed.receive(response) }
        if let download = self as? URLSessionDownloadTask {
            do throws(URLError) {
                try download.prepareFile(for: response)
            } catch {
                abort(with: error)
            }
            return
        }
        guard case .delegate = behaviour, let dataTask = self as? URLSessionDataTask,
              let dataDelegate = taskDelegate as? any URLSessionDataDelegate else { return }
        hold(.awaitingDisposition)
        dataDelegate.urlSession(session, dataTask: dataTask, didReceive: response) { disposition in
            self.apply(disposition)
        }
    }

    /// The most a collected body reserves up front from its Content-Length.
    private static var maximumReservation: Int64 { 256 << 20 }

    // MARK: Dispositions

    /// The data delegate's answer to the response (any thread).
    private func apply(_ disposition: URLSession.ResponseDisposition) {
        switch disposition {
        case .allow:
            release(.awaitingDisposition)
        case .cancel:
            cancel()
            release(.awaitingDisposition)
        case .becomeDownload:
            session.delegateQueue.addOperation {
                self.becomeDownload()
                self.release(.awaitingDisposition)
            }
        }
    }

    /// `.becomeDownload`: a download task takes over the transfer, from the next body byte on, with this
    /// task's request, response, counts and metrics; this task ends without further messages.
    private func becomeDownload() {
        guard let dataTask = self as? URLSessionDataTask, let response = response as? HTTPURLResponse,
              !ending else { return }
        let download = session.adoptTransfer(of: dataTask)
        do throws(URLError) {
            try download.prepareFile(for: response)
        } catch {
            download.abort(with: error)
        }
        guarded.withLock { state in
            state.becameDownload = download
            _ = state.lifecycle.finish()
        }
        (taskDelegate as? any URLSessionDataDelegate)?.urlSession(session, dataTask: dataTask, didBecome: download)
        session.taskDidComplete(self)
    }

    private var ending: Bool {
        guarded.withLock { [.canceling, .completed].contains($0.lifecycle.publicState) }
    }

    // MARK: Body

    private func receivedBody(_ bytes: [UInt8]) {
        if let download = self as? URLSessionDownloadTask {
            do throws(URLError) {
                try download.writeBody(bytes)
            } catch {
                abort(with: error)
            }
            return
        }
        guarded.withLock { state in
            // countOfBytesReceived counts bytes as received: for an encoded body, `encodedBodyBytes` did.
            if !state.bodyIsEncoded { state.countOfBytesReceived += Int64(bytes.count) }
            if case .dataCompletion = behaviour { state.body.append(contentsOf: bytes) }
        }
        updateProgress()
        switch behaviour {
        case .dataCompletion, .downloadCompletion:
            break
        case .byteStream(let feed):
            feed.append(bytes)
        case .delegate:
            guard let dataTask = self as? URLSessionDataTask,
                  let dataDelegate = taskDelegate as? any URLSessionDataDelegate else { return }
            dataDelegate.urlSession(session, dataTask: dataTask, didReceive: Data(bytes))
        }
    }

    private func reportBodyBytesSent(_ total: Int64) {
        let (sent, expected) = guarded.withLock { state -> (Int64, Int64) in
            let sent = total - state.reportedBodyBytesSent
            state.reportedBodyBytesSent = total
            state.countOfBytesSent = total
            return (sent, state.countOfBytesExpectedToSend)
        }
        guard sent > 0 else { return }
        updateProgress()
        taskDelegate?.urlSession(session, task: self, didSendBodyData: sent, totalBytesSent: total,
                                 totalBytesExpectedToSend: expected)
    }

    // MARK: Completion

    /// Ends the task with `error` from inside the drain (a local failure such as a full disk), stopping
    /// its transfer.
    func abort(with error: URLError) {
        let requestID = guarded.withLock { $0.requestID }
        finish(error: error)
        if let requestID { session.transport?.cancel(requestID) }
    }

    func finish(error: URLError?) {
        let (action, decidedError, body, response) = guarded.withLock { state in
            // Once cancel() was called the task completes with `cancelled`, whatever else raced it.
            let error = state.lifecycle.publicState == .canceling && error?.code != .cancelled
                ? URLError(.cancelled, url: state.currentRequest?.url, description: "cancelled") : error
            return (state.lifecycle.finish(), error, state.body, state.response)
        }
        guard action == .complete else { return }
        session.resourceTimeouts.remove(taskIdentifier)
        let download = self as? URLSessionDownloadTask
        var error = decidedError
        if let failure = error, let download { error = download.settleFailure(failure) }
        guarded.withLock { $0.error = error }
        updateProgress()
        if error == nil, case .delegate = behaviour { download?.handOverFile(response: response, completion: nil) }
        if let metrics = collectMetrics() {
            taskDelegate?.urlSession(session, task: self, didFinishCollecting: metrics)
        }
        switch behaviour {
        case .dataCompletion(let completion):
            if let error { completion(nil, nil, error) } else { completion(body, response, nil) }
        case .downloadCompletion(let completion):
            if let error {
                completion(nil, nil, error)
            } else {
                download?.handOverFile(response: response, completion: completion)
            }
        case .byteStream(let feed):
            feed.finish(error: error)
            taskDelegate?.urlSession(session, task: self, didCompleteWithError: error)
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
