import Foundation
import FWTransport

// MARK: - The event trace of a task
//
// `URLSessionTaskTraceDelegate.urlSession(_:task:didEmitTraceEvent:)` hears every event of a traced task (one
// whose delegate, or its session's, is a trace delegate: `DelegateRouter.wantsTrace`). The events come from the
// one trace path that already exists: the transport reports the connection (with how the pool served the
// request and how a new connection was made, `ConnectionInfo.trace`) and the bytes moved only for a traced
// request, and the task turns those and its ordinary events into trace events here, on the delegate queue, in
// the order it handles them. An untraced task pays one flag read per response event (under the task's lock,
// no allocation and no formatting); the payloads are built only when the trace is on.
//
// The hop and attempt: `transmit` starts a hop's trace (attempt 1). The transport retries an attempt on a new
// connection after a stale keep-alive connection failed; it then reports the failed attempt's metrics, what
// failed it (`.retrying`, traced requests only) and a second `.connected`: a `.connected` after metrics within
// one hop is the retry (attempt 2), whose `retry` event carries that error.

/// Where a task's event trace stands (under the task's lock).
struct TaskTraceState {
    /// Whether the hop being sent is traced.
    var enabled = false
    /// The try of the current hop (1, then one more per transport retry).
    var attempt = 1
    /// The connection the current attempt runs on.
    var connection: UInt64?
    /// The current attempt reported its metrics: a further `.connected` in this hop is a retry.
    var attemptEnded = false
    /// What failed the attempt the transport retries (`.retrying`): the URL error code and the description.
    var retryCause: (code: Int, description: String)?

    /// Starts the trace of a hop being sent (`enabled`: whether anybody hears it).
    mutating func startHop(traced: Bool) {
        self = TaskTraceState()
        enabled = traced
    }
}

extension URLSessionTask {
    // MARK: Emitting

    /// Hands one event to the trace delegate, stamped with the session clock, the hop, the attempt and the
    /// connection (`hop` when given, else the current hop's). Only called when the task is traced.
    func emitTrace(_ name: String, _ fields: [(name: String, value: URLSessionTaskTraceEvent.Value)] = [],
                   hop: Int? = nil) {
        DelegateRouter.didEmitTraceEvent(task: self, traceEvent(name, fields, hop: hop))
    }

    /// The event `name` with `fields`, stamped now with the hop (`hop` when given), attempt and connection.
    private func traceEvent(_ name: String, _ fields: [(name: String, value: URLSessionTaskTraceEvent.Value)],
                            hop: Int? = nil) -> URLSessionTaskTraceEvent {
        let (current, trace) = withTransfer { ($0.hop.number, $0.trace) }
        return URLSessionTaskTraceEvent(time: session.clock.now().uptimeNanoseconds, taskIdentifier: taskIdentifier,
                                        hop: hop ?? current, attempt: trace.attempt, connection: trace.connection,
                                        name: name, fields: fields)
    }

    /// The "request" event of a hop that `transmit` is handing to the transport. `transmit` may run on the
    /// caller's thread (the first hop, from `resume()`): the event goes through the delivery queue.
    func traceRequest(_ request: URLRequest, reason: Hop.Reason) {
        var fields: [(name: String, value: URLSessionTaskTraceEvent.Value)] = [
            ("method", .string(request.httpMethod ?? "GET")), ("url", .string(request.url?.absoluteString ?? "")),
            ("reason", .string(Self.traceName(of: reason))),
        ]
        if let raw = request.fwRawRequest { fields.append(("raw_size", .integer(Int64(raw.count)))) }
        enqueue(.trace(traceEvent("request", fields)))
    }

    /// The "redirect" (or "next_hop") event of hop `replaced`, which `next` replaces.
    func traceNextHop(_ next: NextHop, replaced: Int, replacedStatus: Int?) {
        var fields: [(name: String, value: URLSessionTaskTraceEvent.Value)] = [
            ("reason", .string(Self.traceName(of: next.reason))),
            ("url", .string(next.request.url?.absoluteString ?? "")),
            ("method", .string(next.request.httpMethod ?? "GET")),
        ]
        if let replacedStatus { fields.append(("status", .integer(Int64(replacedStatus)))) }
        emitTrace(next.reason == .redirect ? "redirect" : "next_hop", fields, hop: replaced)
    }

    // MARK: Transport events

    /// The trace events of one transport event, before the task handles it; `traced`: the hop being handled
    /// is traced.
    func traceTransport(_ event: TransportEvent, traced: Bool) {
        switch event {
        case .connected(let info):
            // Sent only for traced requests.
            traceConnected(info)
        case .wireWrite(let bytes):
            if !bytes.isEmpty { emitTrace("send", [("size", .integer(Int64(bytes.count))), ("data", .bytes(bytes))]) }
        case .wireRead(let bytes):
            if !bytes.isEmpty { emitTrace("recv", [("size", .integer(Int64(bytes.count))), ("data", .bytes(bytes))]) }
        case .tlsMessage(let message):
            // Sent only for traced requests, before the `recv` of the plaintext that followed it.
            emitTrace("tls_message", [("direction", .string(message.isSent ? "sent" : "received")),
                                      ("name", .string(message.name)), ("type", .integer(Int64(message.type)))])
        case .chunk(let size, let extensions):
            // Sent only for traced requests.
            var fields: [(name: String, value: URLSessionTaskTraceEvent.Value)] = [("size", .integer(size))]
            if !extensions.isEmpty { fields.append(("extensions", .string(extensions))) }
            emitTrace("chunk", fields)
        case .retrying(let error):
            // Sent only for traced requests; told with the retry's `.connected`.
            let code = URLError(error, url: nil).code.rawValue
            withTransfer { $0.trace.retryCause = (code, "\(error)") }
        case .headSent, .bodyBytesSent, .upgraded:
            break
        case .informational(let head), .head(let head):
            guard traced else { return }
            emitTrace("response_head", [
                ("status", .integer(Int64(head.status))), ("version", .string(head.version.description)),
                ("reason", .string(head.reason)), ("informational", .bool(head.status < 200)),
                ("headers", .fields(head.headers.map { ($0.name, $0.value) })),
            ])
        case .body(let bytes):
            guard traced else { return }
            emitTrace("body", [("size", .integer(Int64(bytes.count)))])
        case .encodedBodyBytes(let count):
            guard traced else { return }
            emitTrace("encoded_body", [("size", .integer(Int64(count)))])
        case .metrics(let metrics):
            withTransfer { $0.trace.attemptEnded = true }
            guard traced, !metrics.responseDeviations.isEmpty else { return }
            emitTrace("deviations", [("names", .strings(metrics.responseDeviations.names))])
        case .end(let trailers):
            guard traced else { return }
            if !trailers.isEmpty { emitTrace("trailers", [("fields", .fields(trailers.map { ($0.name, $0.value) }))]) }
            emitTrace("end")
        case .failed(let error):
            guard traced else { return }
            emitTrace("failed", [("error", .string("\(error)"))])
        }
    }

    /// "retry" when the hop's attempt had ended; "pool"; for a new connection "resolve", "connect" and "tls";
    /// then "connected".
    private func traceConnected(_ info: ConnectionInfo) {
        let (retried, cause) = withTransfer { state in
            let retried = state.trace.attemptEnded
            if retried { state.trace.attempt += 1 }
            state.trace.attemptEnded = false
            state.trace.connection = info.id.rawValue
            defer { state.trace.retryCause = nil }
            return (retried, state.trace.retryCause)
        }
        if retried {
            var fields: [(name: String, value: URLSessionTaskTraceEvent.Value)] = [
                ("reason", .string("the reused connection failed before a response")),
            ]
            if let cause { fields += [("error_code", .integer(Int64(cause.code))), ("error", .string(cause.description))] }
            emitTrace("retry", fields)
        }
        if let decision = info.trace?.poolDecision { emitTrace("pool", [("decision", .string(decision.name))]) }
        if let made = info.trace?.establishment { traceEstablishment(made) }
        emitTrace("connected", [
            ("reused", .bool(info.isReused)), ("local", .string(info.localAddress ?? "")),
            ("remote", .string(info.remoteAddress ?? "")),
        ])
    }

    /// How a new connection was made: each phase with its start and end on the session clock.
    private func traceEstablishment(_ made: TransportMetrics) {
        func phase(_ start: UInt64?, _ end: UInt64?) -> [(name: String, value: URLSessionTaskTraceEvent.Value)] {
            [("start_ns", .integer(Int64(start ?? 0))), ("end_ns", .integer(Int64(end ?? 0)))]
        }
        if made.domainLookupStart != nil {
            emitTrace("resolve", phase(made.domainLookupStart, made.domainLookupEnd))
        }
        if made.connectStart != nil {
            let remote = made.remoteAddress.map { "\($0.host):\($0.port)" } ?? ""
            emitTrace("connect", phase(made.connectStart, made.connectEnd) + [("remote", .string(remote))])
        }
        if made.secureConnectionStart != nil {
            var fields = phase(made.secureConnectionStart, made.secureConnectionEnd)
            if let tls = made.tls {
                fields += [("version", .string("\(tls.version)")), ("cipher", .string("\(tls.cipherSuite)")),
                           ("resumed", .bool(tls.isResumed)), ("alpn", .string(tls.alpn ?? "")),
                           ("messages", .strings(tls.handshakeMessages))]
            }
            emitTrace("tls", fields)
        }
    }

    /// The trace's name of a hop's reason.
    static func traceName(of reason: Hop.Reason) -> String {
        switch reason {
        case .first: "first"
        case .redirect: "redirect"
        case .authentication: "authentication"
        case .proxyAuthentication: "proxy-authentication"
        case .unconditional: "unconditional"
        case .routeRetry: "route-retry"
        case .delayedBegin: "delayed-begin"
        }
    }
}
