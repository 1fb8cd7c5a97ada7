// MARK: - StreamChannelStateMachine
//
// The rules of one raw byte stream (a stream task's connection): two halves that close on their own, and a
// security layer that can be put on and taken off the live socket. No I/O: `StreamChannel` feeds it what
// happened and runs the action it returns.
//
//   security:  plain ──startTLS──▶ [drainingForTLS] ──writes drained──▶ handshaking ──complete──▶ awaitingTrust
//                ▲                                                                                   │ trusted
//                │ the peer's close_notify                                                             ▼
//              closingTLS ◀──writes drained── [drainingForPlain] ◀──stopTLS── secure ◀──────────────────┘
//
//   reading:   open ──the peer's end of stream, or closeRead──▶ closed
//   writing:   open ──closeWrite──▶ closing (what was queued drains; close_notify first on TLS) ──▶ closed
//
// While the security layer changes (draining, handshaking, awaiting trust, closing TLS) new writes are held
// by the channel and sent once it settles, so that every byte goes out in the mode that was current when it
// was written; reads wait for a settled layer too. The channel finishes when both halves are closed (no
// error), when a failure ends it (reset, TLS error, refused trust), or when it is aborted. An end of stream
// during a handshake or before the peer's close_notify while closing TLS is a failure.

/// The rules of one `StreamChannel`.
struct StreamChannelStateMachine {
    /// Where the security layer stands.
    enum Security: Equatable {
        case plain
        case drainingForTLS
        case handshaking
        case awaitingTrust
        case secure
        case drainingForPlain
        case closingTLS
    }

    /// What the channel does next.
    enum Action {
        case none
        /// Make the engine and send the ClientHello.
        case beginHandshake
        /// Evaluate the server's trust (the handshake completed).
        case askTrust
        /// TLS is up: send the held writes (encrypted), serve the reads.
        case secured
        /// Queue close_notify (the writes before it drained).
        case sendCloseNotify
        /// Both close_notify went: drop the engine, keep the bytes after the peer's as plaintext, send the
        /// held writes in plaintext.
        case unwrapped
        /// Shut the socket's write side down (close_notify first on TLS, already queued and written); report
        /// the write side closed, then finish when `thenFinish`.
        case shutDownWrite(thenFinish: Bool)
        /// Report the read side closed; then finish when `thenFinish`.
        case readClosed(thenFinish: Bool)
        /// Close the socket and end with `error` (nil: both halves closed cleanly).
        case finish(TransportError?)
    }

    private enum Half: Equatable {
        case open
        case closing
        case closed
    }

    private enum State {
        case active(security: Security, reading: Half, writing: Half)
        case finished
    }

    private var state: State

    /// A machine for a stream that starts plain, or already `secure` (an HTTPS connection taken out of the pool).
    init(secure: Bool = false) {
        state = .active(security: secure ? .secure : .plain, reading: .open, writing: .open)
    }

    // MARK: Questions

    /// Whether the channel ended.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// The security layer (nil once finished).
    var security: Security? {
        guard case .active(let security, _, _) = state else { return nil }
        return security
    }

    /// Whether the socket is still read (reads are served while the read side is open).
    var readsOpen: Bool {
        guard case .active(_, let reading, _) = state else { return false }
        return reading == .open
    }

    /// Whether `write` may queue bytes (the write side is open and no close was asked for).
    var acceptsWrites: Bool {
        guard case .active(_, _, let writing) = state else { return false }
        return writing == .open
    }

    /// Whether new writes wait for the security layer to settle.
    var holdsWrites: Bool {
        guard let security else { return false }
        return security != .plain && security != .secure
    }

    /// Whether buffered plaintext may go to reads (not while the layer changes under them).
    var servesReads: Bool {
        security == .plain || security == .secure || security == .closingTLS
    }

    // MARK: Inputs from the owner

    /// `startSecureConnection()`: TLS starts once what was queued before it was written. Ignored unless
    /// plain with the write side open.
    mutating func startTLS(writesPending: Bool) -> Action {
        guard case .active(.plain, let reading, .open) = state else { return .none }
        state = .active(security: writesPending ? .drainingForTLS : .handshaking, reading: reading, writing: .open)
        return writesPending ? .none : .beginHandshake
    }

    /// `stopSecureConnection()`: close_notify goes once what was queued before it was written. Ignored
    /// unless secure.
    mutating func stopTLS(writesPending: Bool) -> Action {
        guard case .active(.secure, let reading, let writing) = state, writing == .open else { return .none }
        state = .active(security: writesPending ? .drainingForPlain : .closingTLS, reading: reading, writing: writing)
        return writesPending ? .none : .sendCloseNotify
    }

    /// The handshake moved on; `complete` when it finished.
    mutating func handshakeAdvanced(complete: Bool) -> Action {
        guard case .active(.handshaking, let reading, let writing) = state, complete else { return .none }
        state = .active(security: .awaitingTrust, reading: reading, writing: writing)
        return .askTrust
    }

    /// The trust decision: trusted goes on, anything else ends the channel with `refusal`.
    mutating func trustDecided(refusal: TransportError?) -> Action {
        guard case .active(.awaitingTrust, let reading, let writing) = state else { return .none }
        if let refusal { return fail(refusal) }
        state = .active(security: .secure, reading: reading, writing: writing)
        return .secured
    }

    /// The peer's close_notify was read: after ours it ends TLS, otherwise it ends the peer's stream.
    mutating func closeNotifyReceived() -> Action {
        guard case .active(let security, let reading, let writing) = state else { return .none }
        if security == .closingTLS {
            state = .active(security: .plain, reading: reading, writing: writing)
            return .unwrapped
        }
        return endOfStream()
    }

    /// Everything queued was written.
    mutating func writesDrained() -> Action {
        guard case .active(let security, let reading, let writing) = state else { return .none }
        switch security {
        case .drainingForTLS:
            state = .active(security: .handshaking, reading: reading, writing: writing)
            return .beginHandshake
        case .drainingForPlain:
            state = .active(security: .closingTLS, reading: reading, writing: writing)
            return .sendCloseNotify
        case .plain where writing == .closing, .secure where writing == .closing:
            state = reading == .closed ? .finished : .active(security: security, reading: reading, writing: .closed)
            return .shutDownWrite(thenFinish: reading == .closed)
        default:
            return .none
        }
    }

    /// `closeWrite()`: the write side closes once the queue (and the security layer) settled. Ignored when
    /// it is closing or closed already.
    mutating func closeWrite() -> Action {
        guard case .active(let security, let reading, .open) = state else { return .none }
        state = .active(security: security, reading: reading, writing: .closing)
        return .none
    }

    /// `closeRead()`: nothing more is read; the channel finishes when the write side is closed too.
    mutating func closeRead() -> Action {
        guard case .active(let security, .open, let writing) = state else { return .none }
        if writing == .closed {
            state = .finished
            return .finish(nil)
        }
        state = .active(security: security, reading: .closed, writing: writing)
        return .none
    }

    /// The socket reached its end (or the peer's close_notify ended a TLS stream).
    mutating func endOfStream() -> Action {
        guard case .active(let security, let reading, let writing) = state else { return .none }
        switch security {
        case .handshaking, .awaitingTrust, .drainingForTLS:
            return fail(.connectionLost("the peer closed the connection during the TLS handshake"))
        case .closingTLS, .drainingForPlain:
            return fail(.connectionLost("the peer closed the connection before ending TLS"))
        case .plain, .secure:
            guard reading == .open else { return .none }
            if writing == .closed {
                state = .finished
                return .readClosed(thenFinish: true)
            }
            state = .active(security: security, reading: .closed, writing: writing)
            return .readClosed(thenFinish: false)
        }
    }

    /// A failure (I/O, TLS, a refusal) or an abort ends the channel.
    mutating func fail(_ error: TransportError) -> Action {
        guard case .active = state else { return .none }
        state = .finished
        return .finish(error)
    }
}
