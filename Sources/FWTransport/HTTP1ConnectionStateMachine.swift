import FWWire

// MARK: - HTTP1ConnectionStateMachine
//
// The lifecycle of one HTTP/1.1 connection, one request at a time, as a pure value type. The owner
// (`HTTP1Connection`) does the I/O and runs the returned actions.
//
//   connecting ──connected──▶ idle ──startRequest──▶ active ──(request written ∧ response ended)──▶ idle
//        │                      │                      │
//        └──────failure─────────┴──peer close/error────┴──error, timeout, cancel, not reusable──▶ closed
//
// In `active` the two halves are tracked separately (STYLE.md principle 4): the write half is done when
// every request byte left the socket; the read half is done when the parser reported the end of the
// response. Keep-alive is derived, never stored: the connection goes back to `idle` only when both
// halves finished cleanly, the parser said the response allows it, the request did not say
// `Connection: close`, no unread bytes follow the response, and the connection has carried fewer than
// `maxRequests` requests. A response that ends before the
// request was fully written completes the request but closes the connection.
//
// When the peer closes or resets while a request is active, the request is retried (once, by the
// owner, on a new connection) only when that is provably safe (STYLE.md principle 12): the connection
// was reused, no response byte arrived, and either no request byte was written or the method is
// idempotent. An in-memory body is replayable as is; the owner resends a streamed body only when its
// stream makes a new producer, and otherwise does not retry.
//
// Bytes arriving while idle are never a response to a later request: the connection closes.

/// The state machine of one HTTP/1.1 connection.
struct HTTP1ConnectionStateMachine {
    /// What the owner must do.
    enum Action: Equatable {
        case none
        /// Tell the pool the connection is established.
        case reportEstablished
        /// The connection could not be established: report the failure to the pool.
        case reportConnectFailed(TransportErrorBox)
        /// Encode the request and start writing it (the connection is now active).
        case startWriting(RequestID)
        /// The request arrived on a connection that had already closed: hand it back for a retry.
        case bounceRequest(RequestID)
        /// Pass this response event to the request's delegate.
        case forward(RequestID)
        /// The request succeeded; deliver the end, then release the connection to the pool.
        case completeRequest(RequestID, reusable: Bool)
        /// End the request with an error (or retry it) and close the connection.
        case failRequest(RequestID, TransportErrorBox, retry: Bool)
        /// Close the connection and tell the pool it is gone.
        case closeIdle
    }

    private struct Active {
        var request: RequestID
        var isIdempotent: Bool
        var requestForbidsReuse: Bool
        var wroteAnyByte = false
        var writeDone = false
        var responseStarted = false
    }

    private enum State {
        case connecting
        case idle
        case active(Active)
        case closed
    }

    private var state = State.connecting
    /// Whether the connection has carried a request before the current one.
    var isReused: Bool { completedRequests > 0 }
    private var completedRequests = 0
    private let maxRequests: Int

    /// A machine for a new connection that carries at most `maxRequests` requests (nil: no limit).
    init(maxRequests: Int? = nil) {
        self.maxRequests = max(1, maxRequests ?? .max)
    }
    /// The request that is active, if any.
    var activeRequest: RequestID? {
        if case .active(let active) = state { return active.request }
        return nil
    }

    /// True once the connection is closed for good.
    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// True until the connection is established (TCP and, for HTTPS, TLS and trust) or has failed.
    var isConnecting: Bool {
        if case .connecting = state { return true }
        return false
    }

    /// True while no request is in flight on an established connection.
    var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    // MARK: Establishment

    /// The socket connected.
    mutating func connected() -> Action {
        guard case .connecting = state else { preconditionFailure("connected() in state \(state)") }
        state = .idle
        return .reportEstablished
    }

    /// The connection attempt failed.
    mutating func connectFailed(_ error: TransportError) -> Action {
        guard case .connecting = state else { preconditionFailure("connectFailed() in state \(state)") }
        state = .closed
        return .reportConnectFailed(TransportErrorBox(error))
    }

    // MARK: Requests

    /// The pool leased this connection to `request`.
    mutating func startRequest(_ request: RequestID, isIdempotent: Bool, forbidsReuse: Bool) -> Action {
        switch state {
        case .idle:
            state = .active(Active(request: request, isIdempotent: isIdempotent, requestForbidsReuse: forbidsReuse))
            return .startWriting(request)
        case .closed:
            return .bounceRequest(request)
        case .connecting, .active:
            preconditionFailure("startRequest(\(request)) in state \(state)")
        }
    }

    /// Some request bytes left the socket.
    mutating func wroteBytes() {
        guard case .active(var active) = state else { return }
        active.wroteAnyByte = true
        state = .active(active)
    }

    /// Every request byte left the socket.
    mutating func writeFinished() -> Action {
        guard case .active(var active) = state else { return .none }
        active.writeDone = true
        state = .active(active)
        return .none
    }

    /// The parser produced an informational head, a final head or body bytes.
    mutating func receivedResponseEvent() -> Action {
        switch state {
        case .active(var active):
            active.responseStarted = true
            state = .active(active)
            return .forward(active.request)
        case .idle:
            state = .closed
            return .closeIdle
        case .connecting, .closed:
            return .none
        }
    }

    /// The parser reported the end of the response. `hasUnreadBytes`: bytes follow the response.
    mutating func receivedEnd(keepAlive: Bool, hasUnreadBytes: Bool) -> Action {
        guard case .active(let active) = state else { preconditionFailure("receivedEnd in state \(state)") }
        completedRequests += 1
        let reusable = keepAlive && active.writeDone && !active.requestForbidsReuse && !hasUnreadBytes
            && completedRequests < maxRequests
        state = reusable ? .idle : .closed
        return .completeRequest(active.request, reusable: reusable)
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
        case .active(let active):
            state = .closed
            let safeToRetry = isReused && !active.responseStarted && (!active.wroteAnyByte || active.isIdempotent)
            return .failRequest(active.request, TransportErrorBox(error), retry: safeToRetry)
        case .idle:
            state = .closed
            return .closeIdle
        case .connecting:
            return connectFailed(error)
        case .closed:
            return .none
        }
    }

    /// The response broke the protocol, the request could not be encoded, the request timed out or was
    /// cancelled: the request fails and the connection closes (its state is unknown).
    mutating func failActiveRequest(_ error: TransportError) -> Action {
        guard case .active(let active) = state else { return .none }
        state = .closed
        return .failRequest(active.request, TransportErrorBox(error), retry: false)
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

/// `TransportError` with identity equality, so that actions can be `Equatable` for tests.
struct TransportErrorBox: Equatable {
    let error: TransportError

    init(_ error: TransportError) { self.error = error }

    static func == (lhs: TransportErrorBox, rhs: TransportErrorBox) -> Bool {
        lhs.error.description == rhs.error.description
    }
}
