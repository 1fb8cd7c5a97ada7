import Foundation
import FWTransport

// MARK: - Sending: a task drives its own loads
//
// The first `resume()` starts the task (at its earliest begin date, if it has one): its resource timeout
// (`timeoutIntervalForResource`, watched by the session's `TaskDeadlines`) and the first request. Every
// request the task sends — the first, and the next one after each redirect — goes to a URL protocol that
// takes it, or is translated for the transport and handed over here; the transport's events come back to
// the task (`URLSessionTask+Delivery.swift`).
//
// An upload task's body (and a data task's `httpBodyStream`) is produced afresh for every request the task
// sends: bytes are replayed, a file is read again from its start, and a stream is used once — every later
// send (a 307/308 hop, a resend on a new connection) asks the delegate's `needNewBodyStream`.

extension URLSessionTask {
    /// The first `resume()`: the task begins at once, or, with an earliest begin date, waits for it and for
    /// its delegate (`URLSessionTask+Scheduling.swift`).
    final func start() {
        let startFailure = transfer.withLock { transfer in
            transfer.metricsClock = session.clock
            transfer.fetchStart = session.clock.date()
            return transfer.startFailure
        }
        if let startFailure {
            enqueue(.fail(startFailure))
            return
        }
        if let beginDate = earliestBeginDate {
            scheduleBegin(at: beginDate)
        } else {
            begin()
        }
    }

    /// The task begins loading: the resource timeout starts, then the first request (`request`, else the
    /// current one).
    final func begin(with request: URLRequest? = nil) {
        if let request { transfer.withLock { $0.currentRequest = request } }
        guard let request = request ?? currentRequest else {
            enqueue(.fail(URLError(.unsupportedURL, url: nil, description: "the task has no request")))
            return
        }
        let resourceTimeout = session.sessionConfiguration.timeoutIntervalForResource
        armResourceTimer(deadline: session.clock.deadline(after: resourceTimeout))
        send(request)
    }

    /// Ends the task with `timedOut` at `deadline` unless it completes first.
    final func armResourceTimer(deadline: Deadline) {
        transfer.withLock { $0.resourceDeadline = deadline }
        session.taskDeadlines.add(taskIdentifier, .resource, at: deadline)
    }

    /// `timeoutIntervalForResource` passed: the task ends with `timedOut` wherever it is, or with
    /// `notConnectedToInternet` when it was waiting for connectivity (`URLSessionTask+Connectivity.swift`).
    final func resourceTimeoutElapsed() {
        if let requestID = control.withLock({ $0.requestID }) {
            session.transport?.cancel(requestID, error: .timedOut("the resource timeout elapsed"))
        }
        stopProtocolLoad()
        let error = isWaitingForConnectivity
            ? URLError(.notConnectedToInternet, url: currentRequest?.url,
                       description: "no route to the host before the resource timeout elapsed")
            : URLError(.timedOut, url: currentRequest?.url, description: "the resource timeout elapsed")
        enqueue(.fail(error))
    }

    /// Sends one request (the first, or the next after a redirect or an answered challenge): to the URL
    /// protocol that takes it, if any (`URLSessionTask+Protocol.swift`); else with its cookies and the
    /// session's default fields, through the URL cache (which may serve it, validate it or fail it), to the
    /// transport. `bypassingCache` sends it to the network as it is.
    final func send(_ request: URLRequest, bypassingCache: Bool = false) {
        if !bypassingCache, startProtocolLoad(for: request) { return }
        let outgoing = request.outgoing(configuration: session.sessionConfiguration, cookies: storedCookies(for: request))
        let decision = bypassingCache ? .load(outgoing) : cacheDecision(for: outgoing)
        transfer.withLock { state in
            state.hopStart = session.clock.date()
            state.cache = TaskCacheState(outgoing: outgoing)
        }
        switch decision {
        case .useStored(let cached):
            serveFromCache(cached, for: outgoing)
        case .fail(let error):
            enqueue(.fail(error))
        case .validate(let cached, let conditional):
            transfer.withLock { $0.cache.validating = cached }
            transmit(conditional)
        case .load(let request):
            transmit(request)
        }
    }

    /// Hands the outgoing request to the transport.
    private func transmit(_ request: URLRequest) {
        guard let transport = session.transport else {
            enqueue(.fail(URLError(.unknown, url: request.url,
                                   description: "FWURLSession could not start its event loops")))
            return
        }
        var transportRequest: TransportRequest
        do {
            transportRequest = try TransportRequest(request, configuration: session.sessionConfiguration,
                                                    proxies: session.proxySettings, priority: priority,
                                                    tracing: DelegateRouter.wantsTrace(task: self),
                                                    webSocket: try sink.webSocketUpgrade(for: request, task: self))
            if let body = try uploadBody(for: request) { transportRequest.body = body }
        } catch {
            enqueue(.fail(error))
            return
        }
        let proxy = transportRequest.key.proxy
        let answer = transfer.withLock { state -> ProxyAuthorization? in
            state.hopProxy = proxy
            return state.proxyAuthorization
        }
        if let answer, let proxy, answer.isFor(proxy) { transportRequest.key.proxy?.authorization = answer.value }
        // Each request sends its body from the first byte (a redirect hop replays it).
        counts.withLock { $0.reportedBodyBytesSent = 0 }
        let id = transport.execute(transportRequest, delegate: self)
        let (cancelled, pause) = control.withLock { state -> (Bool, (Bool, UInt64)?) in
            state.requestID = id
            return (state.lifecycle.publicState == .canceling, Self.pauseDecision(&state, onlyIfPaused: true))
        }
        if cancelled { transport.cancel(id) }
        if let (paused, version) = pause { transport.setReadingPaused(paused, for: id, version: version) }
    }

    // MARK: Reading pause

    /// Tells the transport whether the task wants its response read now: paused while suspended or while
    /// its delegate is behind (`DeliveryQueue.isBacklogged`). Called whenever either may have changed; each
    /// decision carries a version, so one that reaches the transport late never undoes a newer one.
    func syncReadingPause() {
        guard let (id, paused, version) = control.withLock({ state -> (RequestID, Bool, UInt64)? in
            guard let id = state.requestID, let (paused, version) = Self.pauseDecision(&state) else { return nil }
            return (id, paused, version)
        }) else { return }
        session.transport?.setReadingPaused(paused, for: id, version: version)
    }

    /// What the task wants now, with the next version (under the task's lock); nil when `onlyIfPaused`
    /// and it wants the response read (the transport's default: nothing to send).
    private static func pauseDecision(_ state: inout TaskControl, onlyIfPaused: Bool = false) -> (Bool, UInt64)? {
        let paused = state.lifecycle.isSuspended || state.deliveries.isBacklogged
        if onlyIfPaused, !paused { return nil }
        state.pauseVersion += 1
        return (paused, state.pauseVersion)
    }

    // MARK: Upload bodies

    /// The body for sending `request` now, or nil to send the request's own `httpBody`.
    final func uploadBody(for request: URLRequest) throws(URLError) -> TransportRequestBody? {
        let (upload, originalStream) = transfer.withLock { state -> (UploadBody?, InputStream?) in
            guard case .stream = state.upload, !state.usedOriginalBodyStream else { return (state.upload, nil) }
            state.usedOriginalBodyStream = true
            return (state.upload, originalRequest?.httpBodyStream)
        }
        switch upload {
        case nil:
            return nil
        case .data(let data):
            return .bytes([UInt8](data))
        case .file(let url):
            return .stream(try FileBodyProducer.bodyStream(contentsOf: url))
        case .stream:
            let length = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
            return .stream(InputStreamBodyProducer.bodyStream(originalStream, length: length) { [weak self] provide in
                guard let self else { return provide(nil) }
                DelegateRouter.needNewBodyStream(task: self, provide)
            })
        }
    }
}
