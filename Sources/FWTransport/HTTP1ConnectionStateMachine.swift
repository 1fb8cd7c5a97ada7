import FWTLS
import FWWire

// MARK: - HTTP1ConnectionStateMachine
//
// The lifecycle of one HTTP/1.1 connection, one request at a time, as a value type (its request in flight
// behind a reference, see `active` below). The owner (`HTTP1Connection`) does the I/O, feeds in what
// happened, and runs the returned action in one place (`HTTP1Connection.run`).
//
//   connecting(tcp) ──tcpConnected, http──────────────────────────────────────────────▶ idle
//        │ through a tunnel ──▶ connecting(tunnelling) ──open, http───────────────────────▲
//        │ https                          │ open, https                                   │
//        ▼ ◀──────────────────────────────┘                                               │
//   connecting(handshaking) ──complete──▶ connecting(awaitingTrust) ──trust───────────────┤
//        │ client certificate requested       ▲          │ trust, identity wanted        │
//        └────────────────────────────────────┘          ▼                               │
//                       connecting(awaitingIdentity) ──chosen──▶ connecting(handshaking) ─┘ (complete, already trusted)
//
//   idle ──startRequest──▶ active(request) ──(write done ∧ response ended ∧ reusable)──▶ idle
//   active(WebSocket handshake) ──its 101 ended──▶ closed, the connection handed over (never back to the pool)
//   active ──detachStream (the task took the response as a stream)──▶ closed, handed over the same way
//
//   any state ──failure, reject, cancel, peer close, not reusable──▶ closed
//
// A connection through a SOCKS5 proxy, or to an HTTPS origin through an HTTP proxy, first opens a tunnel:
// the machine holds the tunnel's own sans-I/O machine (`ProxyTunnel`), hands it what the proxy sends and
// turns its answers into actions; TLS with the origin (SNI, trust, pinning) starts only inside the open
// tunnel. Bytes the proxy sends after the tunnel opened, before we sent anything, fail the connection
// (the origin speaks only when spoken to: TLS and HTTP clients speak first).
//
// HTTPS stays `connecting` through the handshake, the server-trust decision and the choice of a client
// certificate (both may ask a delegate; the handshake pauses for them). The server's trust is decided
// once per handshake, before anything of ours depends on it: when the handshake completes, or earlier
// when the server asks for a client certificate (its chain is then known), in which case the identity is
// chosen only once the server is trusted and the completed handshake needs no second decision.
//
// In `active` the request's own machine (`HTTP1RequestStateMachine`) tracks the two halves (STYLE.md
// principle 4). It sits behind a reference (`InFlightRequest`, held by this machine alone), so that the
// state is a tag and a pointer: the connection asks the state several times per read (`isIdle`, `isClosed`,
// `isReadingPaused`, ...), and with the request's machine inline every question copied its 153 bytes out
// first (19 such copies in `drainParser` and 27 in `flush`, about 70 per request). Keep-alive is derived, never stored: the connection goes back to `idle` only when both
// halves finished cleanly, the parser said the response allows it, the request did not say
// `Connection: close`, no unread bytes follow the response, and the connection has carried fewer than
// `maxRequests` requests. A response that ends before the request was fully written completes the
// request but closes the connection.
//
// When the peer closes or resets while a request is active, the request is retried (once, by the
// owner, on a new connection) only when that is provably safe (STYLE.md principle 12): the connection was
// reused, no response byte arrived, and either no request byte was written or the request is replayable
// (idempotent, or with an `Idempotency-Key`); a reused connection is read before it is leased, so that a
// close the server sent while it was idle comes first. An in-memory body is replayable as is; the owner
// resends a streamed body only when its stream makes a new producer, and otherwise does not retry.
//
// Bytes arriving while idle are never a response to a later request: the connection closes.
//
// Pipelining (opt-in, `+Pipelining.swift`): while `active`, requests that may be pipelined (GET or HEAD, no
// body) join a queue of followers behind the one in flight, up to the depth; their heads are written at
// once, and the end of a response promotes the oldest follower to `active` (the reads complete the head of
// the queue). Whenever the connection closes with followers queued, they go back to the pool with the
// action (`replaying`), as does a promoted follower that lost its connection before its response began.

/// The state machine of one HTTP/1.1 connection.
struct HTTP1ConnectionStateMachine {
    /// Where the connection is (written only by this machine's inputs, here and in `+Establishment.swift`).
    enum State {
        case connecting(Establishment)
        case idle
        case active(InFlightRequest)
        case closed
    }

    /// The machine of the request in flight, changed in place through the state's reference.
    ///
    /// `@exclusivity(unchecked)` as the connection's own state (`HTTP1Connection`): the connection reads and
    /// changes it on its loop's thread only, about 17 times per request, and no access overlaps another.
    final class InFlightRequest {
        @exclusivity(unchecked) var machine: HTTP1RequestStateMachine

        init(_ machine: HTTP1RequestStateMachine) {
            self.machine = machine
        }
    }

    var state = State.connecting(.tcp)
    /// The tunnel's exchange with the proxy, while tunnelling.
    var tunnel: ProxyTunnel?
    /// TLS with the origin follows the TCP connection (or the tunnel).
    var secure = false
    private var completedRequests = 0
    let maxRequests: Int
    /// The server's trust was decided during this handshake (it asked for a client certificate).
    var trustDecidedEarly = false
    /// Pipelining: the requests written behind the one in flight, oldest first (empty without pipelining).
    var followers: [PreparedRequest] = []
    /// Pipelining: the most requests in flight at once (1: no pipelining).
    let pipeliningDepth: Int
    /// Pipelining: the request in flight was written as a follower (its head went out behind another's).
    var headWasPipelined = false
    /// Pipelining: no request joins any more and the connection ends after the request in flight (its response
    /// will close the connection, or a follower left the queue).
    var pipelineClosed = false

    /// A machine for a new connection that carries at most `maxRequests` requests (nil: no limit) and at most
    /// `pipeliningDepth` at once (1: one at a time).
    init(maxRequests: Int? = nil, pipeliningDepth: Int = 1) {
        self.maxRequests = max(1, maxRequests ?? .max)
        self.pipeliningDepth = max(1, pipeliningDepth)
    }

    /// The number of requests this connection carried to their end.
    var carriedRequests: Int { completedRequests }

    // MARK: State queries

    /// Whether the connection has carried a request before the current one.
    var isReused: Bool { completedRequests > 0 }

    /// The establishment step, while connecting.
    var establishment: Establishment? {
        if case .connecting(let step) = state { return step }
        return nil
    }

    /// True until the connection is established (TCP and, for HTTPS, TLS and trust) or has failed.
    var isConnecting: Bool { establishment != nil }

    /// True while no request is in flight on an established connection.
    var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// True once the connection is closed for good.
    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// The request in flight, if any.
    var activeRequest: PreparedRequest? {
        guard case .active(let inFlight) = state else { return nil }
        return inFlight.machine.request
    }

    /// A copy of the machine of the request in flight, if any (for tests).
    var inFlight: HTTP1RequestStateMachine? {
        if case .active(let inFlight) = state { return inFlight.machine }
        return nil
    }

    /// Whether the connection must not read now: a request is in flight and its task does not want the
    /// response read.
    var isReadingPaused: Bool {
        guard case .active(let inFlight) = state else { return false }
        return inFlight.machine.readingPaused
    }

    /// Whether the request in flight has decoded output still to come out (false when none is in flight).
    var hasDecodedOutputPending: Bool {
        guard case .active(let inFlight) = state else { return false }
        return inFlight.machine.hasDecodedOutputPending
    }

    /// Whether the request in flight has its whole body queued but the end of its writing not yet recorded
    /// (false when none is in flight).
    var awaitsWriteFinished: Bool {
        guard case .active(let inFlight) = state else { return false }
        return inFlight.machine.bodyIsComplete && !inFlight.machine.writeDone
    }

    /// Whether reads count as activity for the request in flight's idle timeout (true when none is in flight).
    var readsCountAsActivity: Bool {
        guard case .active(let inFlight) = state else { return true }
        return inFlight.machine.readsCountAsActivity
    }

    // MARK: Requests

    /// The pool leased this connection to `request`; `readingPaused` is what its task wants now.
    mutating func startRequest(_ request: PreparedRequest, readingPaused: Bool) -> Action {
        switch state {
        case .idle:
            state = .active(InFlightRequest(HTTP1RequestStateMachine(request, readingPaused: readingPaused)))
            headWasPipelined = false
            pipelineClosed = false
            return .startWriting(request)
        case .closed:
            return .bounceRequest(request)
        case .active(let head):
            return admitFollower(request, behind: head.machine)
        case .connecting:
            preconditionFailure("startRequest(\(request.id)) in state \(state)")
        }
    }

    /// Runs `change` on the request in flight (no-op without one) and returns its result.
    mutating func withRequest<R>(_ change: (inout HTTP1RequestStateMachine) -> R) -> R? {
        guard case .active(let inFlight) = state else { return nil }
        return change(&inFlight.machine)
    }

    /// An interim (1xx) head arrived.
    mutating func receivedInformational(_ head: HTTPResponseHead) -> Action {
        switch state {
        case .active(let inFlight):
            let releasesBody = inFlight.machine.receivedInformational(head)
            let request = inFlight.machine.request
            return releasesBody ? .deliverContinue(.informational(head), to: request)
                : .deliver([.informational(head)], to: request)
        case .idle:
            return receivedUnsolicitedBytes()
        case .connecting, .closed:
            return .none
        }
    }

    /// The final head arrived; the request's body stops going out.
    mutating func receivedHead(_ head: HTTPResponseHead) -> Action {
        switch state {
        case .active(let inFlight):
            let producer = inFlight.machine.receivedHead(head)
            let request = inFlight.machine.request
            if request.isPipelinable, Self.closesAfterResponse(head) { pipelineClosed = true }
            return .deliverHead(head, to: request, stop: producer)
        case .idle:
            return receivedUnsolicitedBytes()
        case .connecting, .closed:
            return .none
        }
    }

    // MARK: The request's body

    /// The write queue is empty: the body's next step.
    mutating func nextBodyPiece() -> Action {
        guard case .active(let inFlight) = state, inFlight.machine.bodyHasPieceReady else { return .none }
        return run(inFlight.machine.nextBodyPiece())
    }

    /// The body's producer answered (with the number of the answer it was asked for).
    mutating func producerAnswered(_ answer: TransportBodySink.Answer, number: UInt64) -> Action {
        guard let action = withRequest({ $0.producerAnswered(answer, number: number) }) else { return .none }
        return run(action)
    }

    private mutating func run(_ action: HTTP1RequestStateMachine.BodyAction) -> Action {
        switch action {
        case .none: return .none
        case .write(let bytes, let payload): return .writeBody(bytes, payload: payload)
        case .produce(let producer, let maxLength, let answer):
            return .produceBody(producer, maxLength: maxLength, answer: answer)
        case .finish(let last, let producer): return .finishBody(last, stop: producer)
        case .fail(let reason): return failActiveRequest(.bodyStreamFailed(reason))
        }
    }

    // MARK: The response

    /// Body bytes arrived (decoded here when the response is encoded).
    mutating func receivedBody(_ bytes: [UInt8]) -> Action {
        switch state {
        case .active(let inFlight) where !inFlight.machine.decodes:
            return .deliverBody(bytes, to: inFlight.machine.request)
        case .active: return decoding { request throws(ContentDecoder.Failure) in try request.receivedBody(bytes) }
        case .idle: return receivedUnsolicitedBytes()
        case .connecting, .closed: return .none
        }
    }

    /// The next slice of a decoded body whose received piece is not all out (see HTTP1RequestStateMachine).
    mutating func nextDecodedSlice() -> Action {
        decoding { request throws(ContentDecoder.Failure) in try request.nextDecodedSlice() }
    }

    /// A step of the response body on the request in flight: its events, or the request's failure.
    private mutating func decoding(_ step: (inout HTTP1RequestStateMachine) throws(ContentDecoder.Failure)
        -> [TransportEvent]) -> Action {
        guard case .active(let inFlight) = state else { return .none }
        let outcome = Result { () throws(ContentDecoder.Failure) in try step(&inFlight.machine) }
        switch outcome {
        case .success(let events): return events.isEmpty ? .none : .deliver(events, to: inFlight.machine.request)
        case .failure(let error): return failActiveRequest(.cannotDecodeContent(error.description))
        }
    }

    /// The parser reported the end of the response. `hasUnreadBytes`: bytes follow the response.
    mutating func receivedEnd(trailers: HTTPHeaders, keepAlive: Bool, hasUnreadBytes: Bool) -> Action {
        guard case .active(let inFlight) = state else { preconditionFailure("receivedEnd in state \(state)") }
        do throws(ContentDecoder.Failure) {
            try inFlight.machine.receivedEnd()
        } catch {
            return failActiveRequest(.cannotDecodeContent(error.description))
        }
        completedRequests += 1
        let request = inFlight.machine.request
        if let head = inFlight.machine.switchingProtocolsHead {
            state = .closed
            return .handOver(request, to: .webSocket(head), stop: inFlight.machine.stopBody())
        }
        // Behind a pipelined response, the unread bytes are the followers' responses.
        let pipelined = !followers.isEmpty
        let finished = inFlight.machine.writeDone || pipelined && inFlight.machine.bodyIsComplete
        let reusable = keepAlive && finished && !request.forbidsReuse && (!hasUnreadBytes || pipelined)
            && !pipelineClosed && completedRequests < maxRequests
        let producer = inFlight.machine.stopBody()
        let complete = Action.completeRequest(request, trailers: trailers, reusable: reusable, stop: producer)
        guard reusable else {
            state = .closed
            return closing(complete)
        }
        state = pipelined ? .active(InFlightRequest(promoteFollower())) : .idle
        return complete
    }

    /// The task of the request in flight took its response as a stream (`.becomeStream`): the connection
    /// leaves HTTP for good (ignored without a request in flight).
    mutating func detachStream(deliver: @escaping @Sendable (StreamChannel?) -> Void) -> Action {
        guard case .active(let inFlight) = state else { return .none }
        // The followers' responses would run into the stream: the pipelined request cannot become one.
        guard followers.isEmpty else {
            return failActiveRequest(.connectionLost("a pipelined response cannot become a stream"))
        }
        state = .closed
        return .handOver(inFlight.machine.request, to: .stream(deliver: deliver), stop: inFlight.machine.stopBody())
    }

    /// Bytes arrived while no request was active.
    mutating func receivedUnsolicitedBytes() -> Action {
        guard case .idle = state else { return .none }
        state = .closed
        return .closeIdle
    }

    // MARK: Failures

    /// The peer closed or reset the connection, or a read or write failed.
    mutating func connectionLost(_ error: TransportError) -> Action {
        switch state {
        case .active(let inFlight):
            state = .closed
            let request = inFlight.machine.request
            if headWasPipelined, !inFlight.machine.responseStarted {
                // Unanswered and idempotent, like the followers behind it: all are replayed.
                _ = inFlight.machine.stopBody()
                followers.insert(request, at: 0)
                return closing(.closeIdle)
            }
            let safeToRetry = isReused && !inFlight.machine.responseStarted
                && (!inFlight.machine.wroteAnyByte || request.request.isReplayable)
            return closing(.failRequest(request, error, retry: safeToRetry, stop: inFlight.machine.stopBody()))
        case .idle:
            state = .closed
            return .closeIdle
        case .connecting:
            return connectFailed(error)
        case .closed:
            return .none
        }
    }

    /// The response broke the protocol, the request could not be written, the body failed, the request
    /// timed out or was cancelled: the request fails and the connection closes (its state is unknown).
    mutating func failActiveRequest(_ error: TransportError) -> Action {
        guard case .active(let inFlight) = state else { return .none }
        state = .closed
        return closing(.failRequest(inFlight.machine.request, error, retry: false, stop: inFlight.machine.stopBody()))
    }

    /// The pool retired the idle connection.
    mutating func close() -> Action {
        switch state {
        case .idle:
            state = .closed
            return .closeIdle
        case .closed:
            return .none
        case .connecting, .active:
            preconditionFailure("close() in state \(state)")
        }
    }
}
