import Foundation
import FWTransport

// MARK: - Sending: a task drives its own loads
//
// The first `resume()` starts the task (at its earliest begin date, if it has one): its resource timeout
// (`timeoutIntervalForResource`, watched by the session's `TaskDeadlines`) and the first hop. Every
// request the task sends — the first, and the next one after each redirect — is prepared by the policies
// (`send()`, `URLSessionTask+HopPolicies.swift`): a URL protocol may take it, the cache serve it; otherwise
// it is translated for the transport and handed over here (`transmit`); the transport's events come back to
// the task (`URLSessionTask+Delivery.swift`).
//
// An upload task's body (and a data task's `httpBodyStream`) is produced afresh for every request the task
// sends: bytes are replayed, a file is read again from its start, and a stream is used once — every later
// send (a 307/308 hop, a resend on a new connection) asks the delegate's `needNewBodyStream`.

extension URLSessionTask {
    /// The first `resume()`: the task begins at once, or, with an earliest begin date, waits for it and for
    /// its delegate (`URLSessionTask+Scheduling.swift`).
    final func start() {
        let fetchStart = session.clock.date()
        let (startFailure, earliestBeginDate) = withCore { core in
            core.transfer.metricsClock = session.clock
            core.transfer.fetchStart = fetchStart
            return (core.transfer.startFailure, core.properties.earliestBeginDate)
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
        let deadline = session.clock.deadline(after: session.sessionConfiguration.timeoutIntervalForResource)
        // One lock: the delayed request becomes the hop, the hop's request is checked, the deadline noted.
        let hasRequest = withTransfer { transfer -> Bool in
            if let request {
                transfer.hop = Hop(request: request)
                transfer.hop.reason = .delayedBegin
            }
            guard transfer.currentRequest != nil else { return false }
            transfer.resourceDeadline = deadline
            return true
        }
        guard hasRequest else {
            enqueue(.fail(URLError(.unsupportedURL, url: nil, description: "the task has no request")))
            return
        }
        session.taskDeadlines.add(taskIdentifier, .resource, at: deadline)
        send()
    }

    /// Ends the task with `timedOut` at `deadline` unless it completes first.
    final func armResourceTimer(deadline: Deadline) {
        withTransfer { $0.resourceDeadline = deadline }
        session.taskDeadlines.add(taskIdentifier, .resource, at: deadline)
    }

    /// `timeoutIntervalForResource` passed: the task ends with `timedOut` wherever it is, or with
    /// `notConnectedToInternet` when it was waiting for connectivity (`URLSessionTask+Connectivity.swift`).
    final func resourceTimeoutElapsed() {
        if let requestID {
            session.transport?.cancel(requestID, error: .timedOut("the resource timeout elapsed"))
        }
        stopProtocolLoad()
        let error = isWaitingForConnectivity
            ? URLError(.notConnectedToInternet, url: currentRequest?.url,
                       description: "no route to the host before the resource timeout elapsed")
            : URLError(.timedOut, url: currentRequest?.url, description: "the resource timeout elapsed")
        enqueue(.fail(error))
    }

    /// Hands the hop's outgoing request to the transport (`send()`, `URLSessionTask+HopPolicies.swift`), with
    /// the kept answer to its proxy's challenge (`ProxyAuthenticationHopPolicy`).
    func transmit(_ request: URLRequest) {
        guard let transport = session.transport else {
            enqueue(.fail(URLError(.unknown, url: request.url,
                                   description: "FWURLSession could not start its event loops")))
            return
        }
        // One lock for what the request is built from: who hears the task, its priority and its upload body
        // (the original body stream is taken here: it can be read once).
        let (hearers, priority, upload, originalStream) = withCore { core in
            let upload = core.transfer.upload
            guard case .stream = upload, !core.transfer.usedOriginalBodyStream else {
                return (core.properties.hearers, core.properties.priority, upload, InputStream?.none)
            }
            core.transfer.usedOriginalBodyStream = true
            return (core.properties.hearers, core.properties.priority, upload, originalRequest?.httpBodyStream)
        }
        // Built by throwing calls bound to `let`s, then changed and moved into `execute` by a function that
        // takes it `consuming`: changed in a `do` body with a `catch` (or a throwing function), where this
        // compiler refuses `consume` of a `var`, the request (some 230 bytes) was copied into `execute` and
        // released whole once more.
        do throws(URLError) {
            let tracing = hearers.includes(.trace)
            let transportRequest = try TransportRequest(request, configuration: session.sessionConfiguration,
                                                        proxies: session.proxySettings, priority: priority,
                                                        tracing: tracing,
                                                        webSocket: try sink.webSocketUpgrade(for: request, task: self),
                                                        template: session.requestTemplate)
            let body = try uploadBody(upload, originalStream: originalStream, for: request)
            transmit(transportRequest, of: request, body: body, hearers: hearers, to: transport)
        } catch {
            enqueue(.fail(error))
        }
    }

    /// Gives `transport` `transportRequest`, made from `request`, with its upload body, what the task's hearers
    /// need reported and the kept answer to its proxy's challenge; traced when traced.
    private func transmit(_ transportRequest: consuming TransportRequest, of request: URLRequest,
                          body: TransportRequestBody?, hearers: DelegateRouter.Hearers, to transport: HTTPTransport) {
        let tracing = hearers.includes(.trace)
        if let body { transportRequest.body = body }
        transportRequest.reportsChunks = tracing && DelegateRouter.tracesChunks(task: self)
        // Metrics are made only for a delegate that hears them (`finish`).
        transportRequest.reportsMetrics = hearers.includes(.task)
        let proxy = transportRequest.key.proxy
        // Written by the closure rather than returned as a tuple of optionals, whose destruction went
        // through the optionals' generic value witnesses.
        var answer: String?
        var reason: Hop.Reason?
        withCore { core in
            core.transfer.hop.proxy = proxy
            core.transfer.trace.startHop(traced: tracing)
            core.machine.transmitting()
            // Read only where they count: read whole, the policies' state and the hop were copied.
            if proxy != nil {
                answer = ProxyAuthenticationHopPolicy.authorization(for: proxy, core.transfer.policies)
            }
            if tracing { reason = core.transfer.hop.reason }
        }
        if let answer { transportRequest.key.proxy?.authorization = answer }
        if let reason { traceRequest(request, reason: reason) }
        accepted(transport.execute(transportRequest, delegate: self))
    }

    // MARK: Upload bodies

    /// The body for sending `request` now from the task's `upload` (with the original request's body stream
    /// when this send takes it), or nil to send the request's own `httpBody`.
    final func uploadBody(_ upload: UploadBody?, originalStream: InputStream?,
                          for request: URLRequest) throws(URLError) -> TransportRequestBody? {
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
