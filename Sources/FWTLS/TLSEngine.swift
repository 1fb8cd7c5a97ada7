import CFWOpenSSL

// TLSEngine: one TLS client connection as an engine over two in-memory BIOs. Bytes in, bytes out: the
// owner feeds ciphertext read from the socket with `receiveCiphertext(using:)` (the socket reads straight
// into the engine's inbound buffer) or `receive(ciphertext:)`, writes whatever `pendingCiphertext()`
// returns to the socket, and exchanges plaintext with `send(plaintext:)` and `readPlaintext` (straight
// into the caller's buffer with `readPlaintext(into:)`). The engine never touches a socket, a clock or
// another thread.
//
// States and transitions (OpenSSL runs the protocol; this machine tracks what the owner may do):
//
//   handshaking ──handshake() done──────────────▶ established ──close()──▶ closed
//        │  ▲                                         │                    (reads still drain)
//        │  └─provideClientIdentity(_:)─┐             └─ socketEOF() without close_notify ─▶ failed
//        ├─server asks for a certificate─▶ awaitingClientIdentity
//        └─handshake error / EOF ──────────────────────────────────────────▶ failed
//
// - handshaking: `handshake()` returns `.inProgress` until the peer's flight arrives; flush
//   `pendingCiphertext()` after every call. Trust is not OpenSSL's job here (verify mode NONE): after
//   `.complete`, evaluate `makeServerTrust()` with a `TrustEvaluator` before sending anything.
// - awaitingClientIdentity: the server sent a CertificateRequest and the configuration has no identity;
//   `handshake()` keeps returning `.clientIdentityRequested` until `provideClientIdentity(_:)` answers
//   (nil sends none). The server's chain is known by then (`makeServerTrust()`), so the owner can
//   decide to trust the server before identifying to it.
// - established: application data both ways. The peer's close_notify ends reading
//   (`receivedCloseNotify`) without an error.
// - closed: `close()` queued close_notify; no more sending, reads still drain the peer's last bytes.
// - failed: a TLSError was thrown; every later input rethrows it, and received bytes are dropped. Flush
//   `pendingCiphertext()` once more: OpenSSL may have queued an alert for the peer.
//
// Calling an input in a state that does not allow it (sending before the handshake ends, answering a
// client certificate request nobody made) is a bug in the owner and stops the process; anything the
// peer sends, however malformed, ends in `failed` with an error value.

// MARK: - TLSEngine

/// One TLS client connection over in-memory buffers; owned and used by one thread (not Sendable).
public final class TLSEngine {
    /// Where the handshake stands after a call to `handshake()`.
    public enum HandshakeState: Sendable, Hashable {
        /// Waiting for the peer: flush `pendingCiphertext()`, then read more ciphertext.
        case inProgress
        /// The server asked for a client certificate: answer with `provideClientIdentity(_:)`.
        case clientIdentityRequested
        /// Done: evaluate the server's trust, then exchange application data.
        case complete
    }

    private enum State {
        case handshaking
        case awaitingClientIdentity
        case established
        case closed
        case failed(TLSError)
    }

    /// The answer to a client-certificate request (loop thread only, like the engine).
    enum IdentityAnswer {
        case undecided
        case answered(TLSIdentity?)
    }

    /// The context (configuration, session store) this connection belongs to.
    public let context: TLSContext

    /// The host this connection was opened for: SNI (unless an IP literal), session key, trust host.
    public let serverName: String

    /// The server port, part of the session key.
    public let port: Int

    // Loop thread only, like the engine itself.
    let sslPointer: OpaquePointer
    let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    /// Where `readPlaintext(_:)` decrypts to; allocated on its first use.
    private var scratch: UnsafeMutableRawBufferPointer?
    private var state: State = .handshaking
    var identityAnswer: IdentityAnswer = .undecided
    var certificateWasRequested = false
    var sentCertificate = false
    var storesSessions = true
    /// The handshake messages seen so far, once `recordHandshakeMessages()` asked for them; nil (nothing
    /// recorded, nothing allocated) otherwise.
    var handshakeMessageLog: [TLSHandshakeMessage]?

    /// A connection to `serverName`:`port`: SNI for host names (not for IP literals), the stored session
    /// for that host and port if any, OCSP stapling if configured.
    public init(context: TLSContext, serverName: String, port: Int) throws(TLSError) {
        var readBIO: OpaquePointer?
        var writeBIO: OpaquePointer?
        guard let ssl = fw_ssl_new_with_inbound_bio(context.pointer, &readBIO, &writeBIO), let readBIO, let writeBIO
        else {
            throw TLSError.internalError(reason: "SSL_new failed: \(OpenSSLErrors.drain().text)")
        }
        self.context = context
        self.serverName = serverName
        self.port = port
        self.sslPointer = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        fw_ssl_set_app_data(sslPointer, Unmanaged.passUnretained(self).toOpaque())
        try configureConnection()
    }

    deinit {
        SSL_free(sslPointer)
        scratch?.deallocate()
    }

    private func configureConnection() throws(TLSError) {
        var name = serverName
        if name.hasSuffix(".") { name.removeLast() }
        if !IPAddressText.isLiteral(name), !name.isEmpty, fw_ssl_set_server_name(sslPointer, name) != 1 {
            let errors = OpenSSLErrors.drain()
            throw TLSError.internalError(reason: "unusable server name \"\(serverName)\": \(errors.text)")
        }
        if context.configuration.requestsOCSPStapling {
            fw_ssl_request_ocsp_stapling(sslPointer)
        }
        if context.configuration.requestsSignedCertificateTimestamps {
            fw_ssl_enable_ct(sslPointer)
        }
        if let session = context.sessionStore?.session(for: sessionKey) {
            SSL_set_session(sslPointer, session.pointer)
        }
    }

    // MARK: Ciphertext

    /// Reads ciphertext straight into the engine: `read` writes up to `maxCount` bytes (the socket read)
    /// into the room it is given and returns how many. Returns that count; call `handshake()` or
    /// `readPlaintext` next. The bytes are dropped once the engine failed (`read` still runs).
    @discardableResult
    public func receiveCiphertext<Failure: Error>(
        upTo maxCount: Int, using read: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int
    ) throws(Failure) -> Int {
        var size = 0
        guard let room = fw_inbound_bio_room(readBIO, maxCount, &size) else {
            if case .failed = state {} else {
                state = .failed(.internalError(reason: "cannot buffer received ciphertext"))
            }
            return try withUnsafeTemporaryAllocation(byteCount: maxCount, alignment: 1) { buffer throws(Failure) in
                try read(buffer)
            }
        }
        let count = try read(UnsafeMutableRawBufferPointer(start: room, count: min(size, maxCount)))
        if case .failed = state { return count }
        fw_inbound_bio_commit(readBIO, count)
        return count
    }

    /// Hands bytes read from the socket to the engine. Call `handshake()` or `readPlaintext` next.
    public func receive(ciphertext: UnsafeRawBufferPointer) {
        receiveCiphertext(upTo: ciphertext.count) { room in
            room.copyMemory(from: ciphertext)
            return ciphertext.count
        }
    }

    /// Hands bytes read from the socket to the engine.
    public func receive(ciphertext: [UInt8]) {
        ciphertext.withUnsafeBytes { receive(ciphertext: $0) }
    }

    /// True when there are bytes to write to the socket.
    public var hasPendingCiphertext: Bool {
        BIO_ctrl_pending(writeBIO) > 0
    }

    /// Takes the bytes that must go to the socket next (handshake messages, records, alerts); empty when
    /// there are none. Call after every other input.
    public func pendingCiphertext() -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(writeBIO))
        guard pending > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: pending) { buffer, count in
            count = Int(max(BIO_read(writeBIO, buffer.baseAddress, Int32(clamping: pending)), 0))
        }
    }

    // MARK: Handshake

    /// Advances the handshake with the ciphertext received so far.
    public func handshake() throws(TLSError) -> HandshakeState {
        switch state {
        case .handshaking: break
        case .established: return .complete
        case .awaitingClientIdentity: return .clientIdentityRequested
        case .failed(let error): throw error
        case .closed: preconditionFailure("handshake() in state \(state)")
        }
        ERR_clear_error()
        let result = SSL_do_handshake(sslPointer)
        if result == 1 {
            state = .established
            return .complete
        }
        switch SSL_get_error(sslPointer, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .inProgress
        case SSL_ERROR_WANT_X509_LOOKUP:
            state = .awaitingClientIdentity
            return .clientIdentityRequested
        default:
            throw fail(classifiedError(context: "TLS handshake with \(serverName) failed", duringHandshake: true))
        }
    }

    /// Answers the server's certificate request: send `identity`, or no certificate when nil. Call
    /// `handshake()` next.
    public func provideClientIdentity(_ identity: TLSIdentity?) {
        guard case .awaitingClientIdentity = state else {
            preconditionFailure("provideClientIdentity(_:) in state \(state)")
        }
        identityAnswer = .answered(identity)
        state = .handshaking
    }

    /// True while the handshake waits for `provideClientIdentity(_:)` (after `handshake()` returned
    /// `.clientIdentityRequested`).
    public var isAwaitingClientIdentity: Bool {
        if case .awaitingClientIdentity = state { return true }
        return false
    }

    /// True once `provideClientIdentity(_:)` answered a request of the server (with an identity or
    /// none). False when the server asked for nothing, or when the configuration's identity was sent
    /// without asking the owner.
    public var hasAnsweredClientIdentityRequest: Bool {
        if case .answered = identityAnswer { return true }
        return false
    }

    // MARK: Application data

    /// Encrypts `plaintext` into records; take them with `pendingCiphertext()`.
    public func send(plaintext: UnsafeRawBufferPointer) throws(TLSError) {
        switch state {
        case .established: break
        case .failed(let error): throw error
        case .handshaking, .awaitingClientIdentity, .closed: preconditionFailure("send(plaintext:) in state \(state)")
        }
        var offset = 0
        while offset < plaintext.count {
            ERR_clear_error()
            let chunk = Int32(clamping: plaintext.count - offset)
            let written = SSL_write(sslPointer, plaintext.baseAddress! + offset, chunk)
            guard written > 0 else {
                throw fail(classifiedError(context: "TLS write to \(serverName) failed", duringHandshake: false))
            }
            offset += Int(written)
        }
    }

    /// Encrypts `plaintext` into records; take them with `pendingCiphertext()`.
    public func send(plaintext: [UInt8]) throws(TLSError) {
        var failure: TLSError?
        plaintext.withUnsafeBytes { buffer in
            do throws(TLSError) { try send(plaintext: buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Decrypts every complete record received so far and hands each run of plaintext to `deliver`
    /// (valid only during the call). Returns the number of plaintext bytes delivered; 0 means "need more
    /// ciphertext" or, with `receivedCloseNotify`, the end of the stream. Flush `pendingCiphertext()`
    /// afterwards (TLS 1.3 key updates answer). With TLS 1.3 a server that refuses the client
    /// certificate says so here, after `handshake()` returned `.complete`.
    public func readPlaintext(_ deliver: (UnsafeRawBufferPointer) -> Void) throws(TLSError) -> Int {
        switch state {
        case .established, .closed: break
        case .failed(let error): throw error
        case .handshaking, .awaitingClientIdentity: preconditionFailure("readPlaintext(_:) in state \(state)")
        }
        let buffer = scratch ?? .allocate(byteCount: 16 * 1024, alignment: 8)
        scratch = buffer
        var total = 0
        while true {
            let count = try readPlaintext(into: buffer)
            if count > 0 {
                deliver(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                total += count
            }
            if count < buffer.count { return total }
        }
    }

    /// Decrypts complete records received so far straight into `room` until it is full or no complete
    /// record is left. Returns the number of plaintext bytes written: less than `room.count` means "need
    /// more ciphertext" or, with `receivedCloseNotify`, the end of the stream; a full room may have more
    /// to come (call again). Flush `pendingCiphertext()` afterwards, as with `readPlaintext(_:)`.
    public func readPlaintext(into room: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int {
        switch state {
        case .established, .closed: break
        case .failed(let error): throw error
        case .handshaking, .awaitingClientIdentity: preconditionFailure("readPlaintext(into:) in state \(state)")
        }
        guard let base = room.baseAddress else { return 0 }
        var total = 0
        while total < room.count {
            ERR_clear_error()
            var count = 0
            let result = SSL_read_ex(sslPointer, base + total, room.count - total, &count)
            if result == 1 {
                total += count
                continue
            }
            switch SSL_get_error(sslPointer, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE, SSL_ERROR_ZERO_RETURN:
                return total
            default:
                throw fail(classifiedError(context: "TLS read from \(serverName) failed", duringHandshake: false))
            }
        }
        return total
    }

    /// The plaintext of every complete record received so far, or nil when there was none.
    public func readPlaintext() throws(TLSError) -> [UInt8]? {
        var bytes: [UInt8] = []
        let count = try readPlaintext { bytes.append(contentsOf: $0) }
        return count > 0 ? bytes : nil
    }

    /// True once the peer's close_notify has been read: the stream ended cleanly.
    public var receivedCloseNotify: Bool {
        fw_ssl_received_close_notify(sslPointer) == 1
    }

    // MARK: Closing

    /// Queues close_notify (take it with `pendingCiphertext()`); no more sending afterwards. Before the
    /// handshake has finished there is nothing to announce and the engine just closes.
    public func close() {
        switch state {
        case .established:
            ERR_clear_error()
            SSL_shutdown(sslPointer)
            ERR_clear_error()
            state = .closed
        case .handshaking, .awaitingClientIdentity:
            state = .closed
        case .closed, .failed:
            return
        }
    }

    /// Tells the engine the socket reached end of file. Call it after `readPlaintext` has consumed every
    /// received byte. Returns when the peer had sent close_notify; throws `TLSError.truncated` when it had
    /// not (the data may have been cut short), or a handshake failure during the handshake.
    public func socketEOF() throws(TLSError) {
        switch state {
        case .handshaking, .awaitingClientIdentity:
            throw fail(.handshakeFailed(reason: "\(serverName) closed the connection during the TLS handshake"))
        case .established, .closed:
            if receivedCloseNotify { return }
            throw fail(.truncated(reason: "\(serverName) closed the connection without a TLS close_notify"))
        case .failed(let error):
            throw error
        }
    }

    // MARK: Failure

    private func fail(_ error: TLSError) -> TLSError {
        state = .failed(error)
        return error
    }

    private func classifiedError(context: String, duringHandshake: Bool) -> TLSError {
        TLSError.fromQueue(
            context: context, duringHandshake: duringHandshake,
            sentNoCertificateAfterRequest: certificateWasRequested && !sentCertificate
        )
    }
}
