import Foundation
import FWNetworkMonitor
import FWTransport

// MARK: - Delivery
//
// The transport's events are queued in the task's `DeliveryQueue` (through its machine,
// `URLSessionTask+Executor.swift`) and handled here, one at a time, on the delegate queue. Task-level messages go through the session's delegate router; the response
// and its body go to the task's `ResponseSink`, chosen when the task was made. No delegate is ever called
// with a lock held.

extension URLSessionTask {
    // MARK: Handling one event (delegate queue, no lock held)

    /// Handles `event`; `ending`: the task was cancelled or completed, so only its completion goes out;
    /// `following`: the current hop is being replaced, so the rest of its response is not delivered;
    /// `traced`: the current hop is traced (read by the drain under the lock it takes anyway).
    ///
    /// The event is consumed, so that a body piece reaches the sink as the only reference to its bytes
    /// (`Data(adopting:)` then hands them to the delegate without a copy).
    func handle(_ event: consuming TaskEvent, ending: Bool, following: Bool, traced: Bool) {
        if following, case .transport(let transportEvent) = event, transportEvent.isTerminal {
            endReplacedHop(transportEvent)
            return
        }
        switch consume event {
        case .fail(let error):
            finish(error: error)
        case .cached(.end):
            finish(error: nil)
        case .cached(.response(let response)):
            if !ending { deliverResponse(response) }
        case .cached(.body(let data)):
            if !ending { deliverBody([UInt8](data)) }
        case .loaded(let load, let loaded):
            if !ending { handleProtocolEvent(loaded, from: load) }
        case .created:
            DelegateRouter.didCreateTask(self)
        case .begin:
            if !ending { beginDelayedRequest() }
        case .resumed:
            DelegateRouter.didResume(task: self)
        case .suspended:
            DelegateRouter.didSuspend(task: self)
        case .transport(let event):
            handleTransport(event, ending: ending, following: following, traced: traced)
        case .webSocket(let event):
            sink.webSocket(event, for: self)
        case .stream(let event):
            sink.stream(event, for: self)
        case .trace(let traced):
            if !ending { DelegateRouter.didEmitTraceEvent(task: self, traced) }
        }
    }

    /// After cancel() (or the completion) nothing but the completion is delivered; the rest of a redirect
    /// being followed is not delivered at all.
    private func handleTransport(_ event: consuming TransportEvent, ending: Bool, following: Bool, traced: Bool) {
        switch event {
        case .end, .failed:
            break
        case .upgraded(let channel):
            // A task cancelled meanwhile drops the WebSocket it asked for.
            if ending { channel.abort(.cancelled) } else { sink.upgraded(channel, for: self) }
            return
        case .head, .body, .encodedBodyBytes, .informational:
            guard !ending && !following else { return }
        default:
            guard !ending else { return }
        }
        traceTransport(event, traced: traced)
        switch consume event {
        case .connected(let info):
            DelegateRouter.didUseConnection(task: self, to: info.remoteAddress, reused: info.isReused)
        case .headSent(let bytes):
            DelegateRouter.didSendRequestHead(task: self, Data(bytes))
        case .wireWrite(let bytes):
            DelegateRouter.didWriteBytes(task: self, Data(bytes))
        case .wireRead(let bytes):
            DelegateRouter.didReadBytes(task: self, Data(bytes))
        case .bodyBytesSent(let total):
            reportBodyBytesSent(total)
        case .metrics(let metrics):
            recordTransaction(metrics)
        case .informational(let head):
            if let url = currentRequest?.url {
                DelegateRouter.didReceiveInformationalResponse(task: self, HTTPURLResponse(url: url, head: head))
            }
        case .head(let head):
            receivedHead(head, traced: traced)
        case .body(let bytes):
            cacheBody(bytes)
            deliverBody(bytes)
        case .encodedBodyBytes(let count):
            update { machine in
                machine.counts.received += Int64(count)
                machine.counts.bodyIsEncoded = true
            }
        case .end(let trailers):
            if !trailers.isEmpty {
                DelegateRouter.didReceiveTrailers(task: self, trailers.map { ($0.name, $0.value) })
            }
            finishCachedOrStored()
        case .failed(let error):
            hopFailed(error)
        case .chunk, .retrying, .tlsMessage:
            break // only traced (traceTransport above)
        case .upgraded:
            break // handed to the sink above, untraced
        }
    }

    /// Makes `response` the task's response and hands it to the sink (a URL protocol's response may be
    /// of another protocol than HTTP).
    func deliverResponse(_ response: URLResponse) {
        // The progress is read in the lock the change takes (one lock, not two, for every response).
        Self.set(update { machine in
            machine.responseDelivered(response)
            return machine.counts.progressUpdate
        })
        do throws(URLError) {
            if let response = response as? HTTPURLResponse {
                try sink.receive(response, for: self)
            } else {
                try sink.receive(nonHTTP: response, for: self)
            }
        } catch {
            abort(with: error)
        }
    }

    /// A piece of the body, from the network or the cache: counted, checked against the decoded-size limit,
    /// then handed to the sink.
    func deliverBody(_ bytes: consuming [UInt8]) {
        // countOfBytesReceived counts bytes as received: for an encoded body, `encodedBodyBytes` did.
        let (encoded, progress) = update { machine in
            (machine.counts.bodyArrived(bytes.count), machine.counts.progressUpdate)
        }
        Self.set(progress)
        do throws(URLError) {
            if let encoded { try checkDecodedGrowth(encoded.decoded, received: encoded.received) }
            try sink.receive(bytes, for: self)
        } catch {
            abort(with: error)
        }
    }

    /// Refuses a decoded body that grew past `maxDecompressionRatio` times the `received` encoded bytes (beyond
    /// `HTTPLimits.decompressionAllowance`): a decompression bomb ends the task on every path, whether the body
    /// is collected, streamed to a delegate or `bytes(for:)`, or written to a file.
    private func checkDecodedGrowth(_ decoded: Int64, received: Int64) throws(URLError) {
        try BodyCollector.checkDecodedGrowth(decoded, received: received,
                                             limits: session.sessionConfiguration.httpResponseLimits,
                                             url: currentRequest?.url)
    }

    private func reportBodyBytesSent(_ total: Int64) {
        let (sent, expected, progress) = update { machine in
            let (sent, expected) = machine.counts.bodyBytesSent(total)
            return (sent, expected, machine.counts.progressUpdate)
        }
        guard sent > 0 else { return }
        Self.set(progress)
        DelegateRouter.didSendBodyData(task: self, sent, total: total, expected: expected)
    }

    // MARK: Completion

    /// Ends the task with `error` from inside the drain (a local failure such as a full disk), stopping
    /// its transfer.
    func abort(with error: URLError) {
        let requestID = requestID
        finish(error: error)
        if let requestID { session.transport?.cancel(requestID) }
    }

    /// Completes the task (once): the sink settles the outcome, the metrics go out, then the completion.
    /// `error` is a `URLError` (completed with `NSErrorFailingURLKey` and `NSErrorFailingURLStringKey`), except
    /// a URL protocol's own error, which the task completes with as it is.
    func finish(error: (any Error)?) {
        // One lock for what ending changes in the task: the machine's input (once cancel() was called the
        // task completes with `cancelled`, whatever else raced it), the bodies the hop lets go (a finished
        // task keeps its metadata, not its body, whoever holds on to it), the wait for a route and the URL
        // protocol load it stops.
        // Bound in the `guard`: bound from a separate optional, the ending was copied out and both destroyed.
        guard let ending = withCore({ core -> Ending? in
            let url = core.transfer.currentRequest?.url
            let (completes, decided) = core.machine.finish(
                error: error, cancellation: URLError(.cancelled, url: url, description: "cancelled"))
            guard completes else { return nil }
            core.transfer.hop.dropBodies()
            return Ending(url: url, error: decided, response: core.machine.response,
                          watch: core.transfer.policies.connectivity.end(),
                          protocolLoad: core.transfer.hop.protocolLoad,
                          hearsMetrics: core.properties.hearers.includes(.task))
        }) else { return }
        session.taskDeadlines.remove(taskIdentifier)
        ending.watch?.cancel()
        ending.protocolLoad?.stop()
        // The one place every task ends: its URLError names the URL that failed, however it was made.
        let error = settle(ending.error, response: ending.response).map { error -> any Error in
            (error as? URLError)?.addingFailingURL(ending.url ?? originalRequest?.url) ?? error
        }
        Self.set(update { machine in
            machine.completed(with: error)
            return machine.counts.progressUpdate
        })
        if ending.hearsMetrics, let metrics = collectMetrics() {
            DelegateRouter.didFinishCollecting(task: self, metrics)
        }
        sink.complete(with: error, response: ending.response, for: self)
        session.taskDidComplete(self)
    }

    /// What `finish` takes out of the task under its lock.
    private struct Ending {
        var url: URL?
        var error: (any Error)?
        var response: URLResponse?
        var watch: NetworkWatch?
        var protocolLoad: ProtocolLoad?
        var hearsMetrics: Bool
    }

    /// The sink settles a `URLError` (resume data); any other error is settled as `unknown` (so that the sink
    /// lets go of what it holds) and kept as it is.
    private func settle(_ error: (any Error)?, response: URLResponse?) -> (any Error)? {
        guard let error else { return sink.settle(nil, response: response, for: self) }
        if let error = error as? URLError { return sink.settle(error, response: response, for: self) }
        _ = sink.settle(URLError(.unknown, url: currentRequest?.url, description: "\(error)"), response: response,
                        for: self)
        return error
    }
}
