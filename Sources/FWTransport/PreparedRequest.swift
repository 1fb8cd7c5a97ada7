import FWLoop
import FWWire

// MARK: - PreparedRequest

/// A validated request with its head already encoded, ready for any connection of its key.
///
/// A class, immutable after `init`: the request travels through the pool, the connection's machines and
/// their actions, and a reference is all those copies cost (as a struct it was a few hundred bytes each).
final class PreparedRequest: Sendable {
    let id: RequestID
    let request: TransportRequest
    /// The exact head bytes to write.
    let encodedHead: [UInt8]
    /// The request said `Connection: close`, so the connection ends with it.
    let forbidsReuse: Bool
    /// The body waits for `100 Continue` (or `continueWait`) before it is sent.
    let expectsContinue: Bool
    let delegate: any TransportTaskDelegate
    /// The request may join a pipeline (`TransportRequest.pipelining`, and it is a GET or HEAD without a body,
    /// `Connection: close`, `Expect` or a WebSocket handshake): pipelined requests are always replayable.
    let isPipelinable: Bool
    /// How many times the request was sent again because the pipelined connection it was written on closed
    /// (or broke) before its response began (reported in its metrics).
    let pipelineReplays: Int

    /// Hands out the producers of a streamed body, one per attempt (nil for other bodies).
    let bodyProducers: RequestBodyProducers?

    /// Completes the head (`Host`, as the first field; `Content-Length`, or `Transfer-Encoding: chunked` for
    /// a stream of unknown length; `Expect: 100-continue` for large or unknown-length bodies; the proxy's
    /// form, see `addressProxy`; a WebSocket handshake's fields) and encodes it; throws before any connection
    /// is involved when the request would put invalid bytes on the wire. A raw request's bytes are taken as
    /// they are (`TransportRequest.rawBytes`).
    init(id: RequestID, request: consuming TransportRequest, delegate: any TransportTaskDelegate)
        throws(HTTPRequestError) {
        if let raw = request.rawBytes {
            // A raw request goes out exactly as given, and nothing else may follow it on its connection.
            self.id = id
            self.request = request
            self.encodedHead = raw
            self.forbidsReuse = true
            self.expectsContinue = false
            self.bodyProducers = nil
            self.delegate = delegate
            self.isPipelinable = false
            self.pipelineReplays = 0
            return
        }
        var head = request.head
        // RFC 9110 §7.2: Host goes first (servers and proxies that read it by position exist). Without one of
        // the caller's, the encoder writes it from the key, ahead of the fields (no value built, none moved).
        let hasHost = head.headers.contains(name: "Host")
        if hasHost { head.headers.moveToFront(name: "Host") }
        Self.addressProxy(&head, key: request.key)
        if let upgrade = request.webSocket {
            // The handshake's own fields replace any the caller set (a stale key would fail the accept check).
            for field in upgrade.handshake.requestHeaders {
                head.headers.replaceOrAdd(name: field.name, value: field.value)
            }
        }
        if let body = request.body {
            let length = body.length
            if let length {
                head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
            } else {
                head.headers.remove(name: "Content-Length")
                head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            }
            if length.map({ $0 > Self.continueThreshold }) ?? true, !head.headers.contains(name: "Expect") {
                head.headers.add(name: "Expect", value: "100-continue")
            }
        }
        let hasBody = request.body.map { $0.length != 0 } ?? false
        var bytes: [UInt8] = [] // the encoder sizes it
        if hasHost {
            try HTTPRequestEncoder.encodeHead(head, into: &bytes)
        } else {
            let key = request.key
            try HTTPRequestEncoder.encodeHead(head, host: key.host, port: key.usesDefaultPort ? nil : key.port,
                                              into: &bytes)
        }
        self.id = id
        self.encodedHead = bytes
        let closes = head.headers.containsToken("close", inField: "Connection")
        self.forbidsReuse = closes
        self.expectsContinue = hasBody && head.headers.containsToken("100-continue", inField: "Expect")
        if case .stream(let stream)? = request.body {
            self.bodyProducers = RequestBodyProducers(stream)
        } else {
            self.bodyProducers = nil
        }
        self.delegate = delegate
        self.isPipelinable = request.pipelining && request.body == nil && request.webSocket == nil
            && (head.method == "GET" || head.method == "HEAD")
            && !closes && !head.headers.contains(name: "Expect")
        self.pipelineReplays = 0
        self.request = request // last: moved in, not copied
    }

    /// The same request, to be sent again after its pipelined connection closed before answering it.
    private init(replaying original: PreparedRequest) {
        id = original.id
        request = original.request
        encodedHead = original.encodedHead
        forbidsReuse = original.forbidsReuse
        expectsContinue = original.expectsContinue
        delegate = original.delegate
        bodyProducers = original.bodyProducers
        isPipelinable = original.isPipelinable
        pipelineReplays = original.pipelineReplays + 1
    }

    /// The request as it goes out again after its pipelined connection closed before answering it (its
    /// replay counted).
    func replayed() -> PreparedRequest {
        PreparedRequest(replaying: self)
    }

    /// Readies the body for a resend on a new connection after a failure on `loop`: a streamed body
    /// needs a new producer, and without one the request must not be retried.
    func prepareResend(on loop: EventLoop) -> Bool {
        bodyProducers?.prepareResend(on: loop) ?? true
    }

    /// Bodies larger than this ask for `100 Continue` first (CONFORMANCE.md, "Requests we write").
    static let continueThreshold = 1024 * 1024
    /// How long a body waits for `100 Continue` before it is sent anyway, at most.
    static let continueTimeout: Duration = .seconds(1)

    /// How long this request's body waits for `100 Continue`: `continueTimeout`, or half the request's idle
    /// timeout when that is shorter — the wait is silence, and a server that never sends `100` must not
    /// make a short idle timeout fire before the body went out.
    var continueWait: Duration {
        let idle = request.idleTimeout
        return idle > .zero ? min(Self.continueTimeout, idle / 2) : Self.continueTimeout
    }

    /// Hands one event to the request's delegate.
    func deliver(_ event: TransportEvent) {
        delegate.transportTask(id, didReceive: event)
    }

    /// Hands several events, in order, to the request's delegate in one call, moved out of `events` (left
    /// empty, its storage kept).
    func deliver(_ events: inout [TransportEvent]) {
        if events.count == 1 {
            delegate.transportTask(id, didReceive: events.removeLast())
        } else {
            delegate.transportTask(id, didReceive: &events)
        }
    }

    /// `Proxy-Authorization` never reaches an origin: whatever the caller set is dropped (URLSession
    /// reserves the field). A request sent to an HTTP proxy in absolute form (plain HTTP through it) gets
    /// the absolute-form target (RFC 9112 §3.2.2) and the proxy's `authorization`, else the Basic
    /// `Proxy-Authorization` of its credentials, if any (a proxy that consumes it never forwards it).
    static func addressProxy(_ head: inout HTTPRequestHead, key: ConnectionKey) {
        head.headers.remove(name: "Proxy-Authorization")
        guard key.usesAbsoluteForm else { return }
        if head.target.hasPrefix("/") {
            let host = key.host.contains(":") ? "[\(key.host)]" : key.host
            let port = key.usesDefaultPort ? "" : ":\(key.port)"
            head.target = "\(key.scheme)://\(host)\(port)\(head.target)"
        }
        if let value = key.proxy?.authorization ?? key.proxy?.credentials?.basicAuthorization {
            head.headers.add(name: "Proxy-Authorization", value: value)
        }
    }
}
