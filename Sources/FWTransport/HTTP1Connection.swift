import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection

/// One HTTP/1.1 connection: owns the socket, the TLS engine (for HTTPS), the response parser and the
/// write queue, and runs the actions of its `HTTP1ConnectionStateMachine`. Lives on one event loop.
///
/// For HTTPS the connection stays `connecting` through the TLS handshake and the server-trust decision
/// (which may ask the session delegate); plaintext goes through the engine both ways, and a peer that
/// closes without close_notify while a response is in flight is a truncation, never a clean end.
///
/// Sendable because it only crosses threads as a reference handed to `loop.execute`: every mutable
/// stored property below is touched on `loop`'s thread only (checked with `preconditionInEventLoop`
/// at every entry point).
final class HTTP1Connection: IOHandler, @unchecked Sendable { // loop-thread-only state (see above)
    let id: ConnectionID
    let key: ConnectionKey
    let loop: EventLoop
    let transport: HTTPTransport
    let connectTimeout: Duration
    private let idleConnectionTimeout: Duration

    // MARK: Loop-thread state

    /// Loop thread only.
    var machine: HTTP1ConnectionStateMachine
    /// Loop thread only.
    var socket: Socket?
    /// Loop thread only.
    private var registration: RegistrationID?
    /// Loop thread only.
    private var interest: IOInterest = []
    /// Loop thread only.
    var parser: HTTPResponseParser
    /// Loop thread only.
    var writes = PendingWrites()
    /// The request leased to this connection. Loop thread only.
    var current: PreparedRequest?
    /// Loop thread only: the request idle timer, or the idle-connection timer.
    private var timer: TimerID?
    /// Loop thread only: when a byte last moved for the current request.
    var lastActivity = Deadline.now()
    /// Loop thread only: the buffer ciphertext is read into (HTTPS only; plaintext is read straight into
    /// the parser).
    private lazy var cipherBuffer = [UInt8](repeating: 0, count: Self.readSize)
    /// How much one read takes at most.
    private static let readSize = 64 * 1024
    /// Loop thread only: when this connection was resolved and connected (for its first request's metrics).
    var establishment = TransportMetrics()
    /// Loop thread only: the socket's local and peer addresses as text, read once when it connected (for
    /// every request's `.connected` event).
    var addresses: (local: String?, remote: String?) = (nil, nil)
    /// Loop thread only: events waiting for the end of the loop iteration (`post`), per request, in order.
    var outbox: [(request: PreparedRequest, events: [TransportEvent])] = []
    /// Loop thread only: the current request's metrics, and the bytes it wrote and read so far.
    var metrics = TransportMetrics()
    var bytesWritten: Int64 = 0
    var bytesRead: Int64 = 0
    /// Loop thread only: the task is suspended, so the connection stops reading (backpressure) and the
    /// idle timeout does not run.
    var readingPaused = false
    /// Loop thread only: the TLS engine of an HTTPS connection, and whether a trust decision is pending
    /// (at the end of the handshake, or in its middle when the server asks for a client certificate);
    /// records that arrive meanwhile, such as session tickets, wait in the engine.
    var tls: TLSEngine?
    var awaitingTrust = false
    /// Loop thread only: undoes the current response's Content-Encoding, when the request asked.
    var decoder: ContentDecoder?
    /// Loop thread only: the current request's body on its way out (nil without a request), its
    /// producer while it is streamed, the number of the one producer answer awaited (others are stale),
    /// the body bytes the socket took, and the timer that sends a body waiting for `100 Continue` anyway.
    var requestBody: RequestBodyStateMachine?
    var bodyProducer: (any TransportBodyProducer)?
    var bodyAnswerNumber: UInt64 = 0
    var bodyBytesSent: Int64 = 0
    var continueTimer: TimerID?

    init(id: ConnectionID, key: ConnectionKey, loop: EventLoop, transport: HTTPTransport,
         connectTimeout: Duration, idleConnectionTimeout: Duration, maxRequests: Int?, limits: HTTPLimits) {
        self.id = id
        self.key = key
        self.loop = loop
        self.transport = transport
        self.connectTimeout = connectTimeout
        self.idleConnectionTimeout = idleConnectionTimeout
        self.parser = HTTPResponseParser(limits: limits)
        self.machine = HTTP1ConnectionStateMachine(maxRequests: maxRequests)
    }

    // MARK: Establishment

    /// Resolves the host and connects (racing addresses), then reports to the pool. Loop thread.
    func start() {
        loop.preconditionInEventLoop()
        let establisher = ConnectionEstablisher(key: key, loop: loop, timeout: connectTimeout) { [self] result, times in
            switch result {
            case .success(let socket): adopt(socket, times: times)
            case .failure(let error): run(machine.connectFailed(error))
            }
        }
        establisher.start()
    }

    private func adopt(_ socket: Socket, times: TransportMetrics) {
        self.socket = socket
        establishment = times
        let local = socket.localAddress()
        let remote = socket.remoteAddress()
        establishment.localAddress = local.map(SocketAddressInfo.init)
        establishment.remoteAddress = remote.map(SocketAddressInfo.init)
        addresses = (local?.description, remote?.description)
        do throws(IOError) {
            try register(socket, interest: .readable)
        } catch {
            run(machine.connectFailed(.cannotConnect(error)))
            return
        }
        guard key.scheme == "https" else {
            run(machine.connected())
            return
        }
        do throws(TLSError) {
            tls = try TLSEngine(context: transport.tlsContext().get(), serverName: key.host, port: key.port)
        } catch {
            run(machine.connectFailed(.secureConnectionFailed(error)))
            return
        }
        establishment.secureConnectionStart = TransportMetrics.now()
        armTimer(after: connectTimeout) { [self] in
            run(machine.connectFailed(.timedOut("the TLS handshake with \(key) took longer than \(connectTimeout)")))
        }
        advanceHandshake()
    }

    // MARK: Requests

    /// Runs `request` on this connection, which the pool leased to it. Loop thread.
    func execute(_ request: PreparedRequest, readingPaused: Bool) {
        loop.preconditionInEventLoop()
        current = request
        self.readingPaused = readingPaused
        run(machine.startRequest(request.id, isIdempotent: request.request.isIdempotent,
                                 forbidsReuse: request.forbidsReuse))
    }

    /// Ends `request` with `error` if it is the one running here. Loop thread.
    func cancel(_ request: RequestID, error: TransportError) {
        loop.preconditionInEventLoop()
        guard machine.activeRequest == request else { return }
        run(machine.failActiveRequest(error))
    }

    /// Stops or restarts reading for `request` (its task was suspended or resumed). Loop thread.
    func setReadingPaused(_ paused: Bool, for request: RequestID) {
        loop.preconditionInEventLoop()
        guard machine.activeRequest == request, paused != readingPaused else { return }
        readingPaused = paused
        lastActivity = .now()
        do throws(IOError) {
            try updateInterest()
        } catch {
            run(machine.connectionLost(.connectionLost("the connection failed: \(error)", underlying: error)))
        }
    }

    /// Closes the connection if it is idle (the pool retired it). Loop thread.
    func closeIfIdle() {
        loop.preconditionInEventLoop()
        guard machine.isIdle else { return }
        run(machine.close())
    }

    // MARK: IOHandler

    func handleIO(_ events: IOEvents) {
        loop.preconditionInEventLoop()
        if socket == nil { return }
        if events.contains(.writable) { flush() }
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) { readAvailable() }
    }

    private func readAvailable() {
        // A few reads per wake-up, so one busy connection cannot starve the others on this loop.
        for _ in 0..<4 {
            guard let socket else { return }
            var result = IOResult<Int>.wouldBlock
            do throws(IOError) {
                if let tls = self.tls {
                    result = try cipherBuffer.withUnsafeMutableBytes { buffer in
                        Result { () throws(IOError) in try socket.read(into: buffer) }
                    }.get()
                    if case .processed(let count) = result, count > 0 {
                        cipherBuffer.withUnsafeBytes { bytes in
                            tls.receive(ciphertext: UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                        }
                    }
                } else {
                    // Plaintext goes straight into the parser's buffer: the read is the only copy.
                    try parser.feed(upTo: Self.readSize) { (room) throws(IOError) -> Int in
                        result = try socket.read(into: room)
                        guard case .processed(let count) = result else { return 0 }
                        noteReceived(UnsafeRawBufferPointer(rebasing: room[..<count]))
                        return count
                    }
                }
            } catch {
                run(machine.connectionLost(.connectionLost("the connection was reset: \(error)", underlying: error)))
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                if tls != nil, machine.isConnecting {
                    run(machine.connectFailed(.secureConnectionFailed(
                        .handshakeFailed(reason: "the server closed the connection during the TLS handshake"))))
                    return
                }
                if let tls, !tls.receivedCloseNotify, machine.activeRequest != nil {
                    // Without close_notify the end of a TLS stream may be an attacker's: never a clean end.
                    run(machine.connectionLost(.connectionLost("the TLS connection closed without close_notify")))
                    return
                }
                peerFinishedSending()
                return
            case .processed(let count):
                lastActivity = .now()
                if let tls {
                    if machine.isConnecting {
                        advanceHandshake()
                    } else {
                        decryptAvailable(tls)
                    }
                }
                drainParser()
                if count < Self.readSize { return }
            }
        }
    }

    /// Plaintext of the response arrived: count it and trace it (the caller feeds the parser).
    func noteReceived(_ bytes: UnsafeRawBufferPointer) {
        guard let current else { return }
        if metrics.responseStart == nil { metrics.responseStart = TransportMetrics.now() }
        bytesRead += Int64(bytes.count)
        if current.request.tracesBytes { post(.wireRead(Array(bytes)), to: current) }
    }

    /// The peer ended its side (TCP EOF, or TLS close_notify): a close-delimited body ends here, anything
    /// else in flight is cut short; the connection closes.
    func peerFinishedSending() {
        parser.feedEndOfStream()
        drainParser()
        run(machine.connectionLost(.connectionLost("the server closed the connection")))
    }

    /// Turns every complete parser event into machine input.
    func drainParser() {
        while !machine.isClosed {
            if machine.isIdle {
                if parser.bufferedByteCount > 0 { run(machine.receivedUnsolicitedBytes()) }
                return
            }
            let event: HTTPResponseEvent?
            do throws(HTTPParseError) {
                event = try parser.next()
            } catch {
                if error.isPrematureEnd {
                    // The same as a close without a parser error: the machine decides whether a retry is safe.
                    run(machine.connectionLost(.connectionLost(
                        "the server closed the connection before the response was complete", underlying: error)))
                } else {
                    run(machine.failActiveRequest(.badResponse(error)))
                }
                return
            }
            guard let event else { return }
            switch event {
            case .informational(let head):
                deliver(machine.receivedResponseEvent(), .informational(head))
                if head.status == 100 { releaseBodyAfterContinue() }
            case .head(let head, _):
                metrics.responseHeaderBytes = bytesRead - Int64(parser.bufferedByteCount)
                finalResponseArrived()
                if current?.request.decodesContent == true,
                   let encoding = head.headers.first(name: "Content-Encoding") {
                    decoder = ContentDecoder(contentEncoding: encoding)
                }
                deliver(machine.receivedResponseEvent(), .head(head))
            case .body(let bytes):
                guard let decoder else {
                    deliver(machine.receivedResponseEvent(), .body(bytes))
                    continue
                }
                do throws(ContentDecoder.Failure) {
                    let decoded = try decoder.decode(bytes)
                    deliver(machine.receivedResponseEvent(), .encodedBodyBytes(bytes.count))
                    if !decoded.isEmpty, let current { post(.body(decoded), to: current) }
                } catch {
                    run(machine.failActiveRequest(.cannotDecodeContent(error.description)))
                }
            case .end(let trailers, let keepAlive):
                do throws(ContentDecoder.Failure) {
                    try decoder?.finish()
                } catch {
                    run(machine.failActiveRequest(.cannotDecodeContent(error.description)))
                    continue
                }
                pendingTrailers = trailers
                metrics.responseEnd = TransportMetrics.now()
                metrics.responseBodyBytes = bytesRead - Int64(parser.bufferedByteCount) - metrics.responseHeaderBytes
                run(machine.receivedEnd(keepAlive: keepAlive, hasUnreadBytes: parser.bufferedByteCount > 0))
            }
        }
    }

    /// Loop thread only: the trailers of the response that just ended, for `completeRequest`.
    private var pendingTrailers = HTTPHeaders()

    private func deliver(_ action: HTTP1ConnectionStateMachine.Action, _ event: TransportEvent) {
        if case .forward = action {
            if let current { post(event, to: current) }
        } else {
            run(action)
        }
    }

    // MARK: Outbox

    /// Hands `event` to `request`'s delegate at the end of this loop iteration, together with the request's
    /// other events of the iteration (one hop to the delegate's queue per response instead of one per event).
    func post(_ event: TransportEvent, to request: PreparedRequest) {
        if let last = outbox.indices.last, outbox[last].request.id == request.id {
            outbox[last].events.append(event)
            return
        }
        if outbox.isEmpty { loop.atEndOfIteration { [self] in flushOutbox() } }
        outbox.append((request, [event]))
    }

    /// Delivers what `post` collected; also called before a request goes back to the transport, which
    /// delivers that request's later events itself.
    func flushOutbox() {
        guard !outbox.isEmpty else { return }
        let batches = outbox
        outbox = []
        for batch in batches { batch.request.deliver(batch.events) }
    }

    // MARK: Actions

    func run(_ action: HTTP1ConnectionStateMachine.Action) {
        switch action {
        case .none, .forward:
            break
        case .reportEstablished:
            armIdleConnectionTimer()
            transport.connectionEstablished(self)
        case .reportConnectFailed(let box):
            cancelTimer()
            closeSocket()
            transport.connectionFailed(self, error: box.error)
        case .startWriting:
            guard let current else { preconditionFailure("startWriting without a request on \(id)") }
            startWriting(current)
        case .bounceRequest:
            let bounced = current
            current = nil
            flushOutbox()
            bounced.map(transport.retry(afterStaleConnection:))
        case .completeRequest(_, let reusable):
            cancelTimer()
            endRequestBody()
            decoder = nil
            readingPaused = false
            let finished = current
            let trailers = pendingTrailers
            current = nil
            pendingTrailers = HTTPHeaders()
            if !reusable { closeSocket() }
            if reusable { armIdleConnectionTimer() }
            // Back to the pool before the delegate hears of the end, so that a request its completion
            // handler starts finds this connection idle.
            let finishedMetrics = finalMetrics()
            transport.requestFinished(finished, on: self, reusable: reusable)
            if let finished {
                post(.metrics(finishedMetrics), to: finished)
                post(.end(trailers: trailers), to: finished)
            }
        case .failRequest(_, let box, let retry):
            cancelTimer()
            endRequestBody()
            decoder = nil
            closeSocket()
            let failed = current
            current = nil
            if let failed { post(.metrics(finalMetrics()), to: failed) }
            // The transport delivers this request's next events itself: the ones collected go first.
            flushOutbox()
            // A streamed body is resent only with a new producer (the old one was just stopped).
            let resend = retry && (failed?.prepareResend(on: loop) ?? true)
            transport.requestFailed(failed, on: self, error: box.error, retry: resend)
        case .closeIdle:
            cancelTimer()
            closeSocket()
            transport.connectionClosed(self)
        }
    }

    // MARK: Metrics

    func startMetrics(for request: PreparedRequest) {
        metrics = machine.isReused ? TransportMetrics() : establishment
        metrics.isReusedConnection = machine.isReused
        metrics.localAddress = establishment.localAddress
        metrics.remoteAddress = establishment.remoteAddress
        metrics.tls = establishment.tls
        metrics.requestStart = TransportMetrics.now()
        metrics.requestHeaderBytes = Int64(request.encodedHead.count)
        bytesWritten = 0
        bytesRead = 0
    }

    private func finalMetrics() -> TransportMetrics {
        var final = metrics
        final.requestBodyBytes = max(0, bytesWritten - final.requestHeaderBytes)
        return final
    }

    // MARK: Socket helpers

    private func register(_ socket: Socket, interest: IOInterest) throws(IOError) {
        registration = try loop.register(fd: socket.fd, interest: interest, handler: self)
        self.interest = interest
    }

    /// Readable unless reading is paused; writable while bytes wait to be written.
    func updateInterest() throws(IOError) {
        var wanted: IOInterest = readingPaused ? [] : .readable
        if !writes.isEmpty { wanted.insert(.writable) }
        try setInterest(wanted)
    }

    private func setInterest(_ wanted: IOInterest) throws(IOError) {
        guard let registration, wanted != interest else { return }
        try loop.setInterest(wanted, for: registration)
        interest = wanted
    }

    private func closeSocket() {
        endRequestBody()
        if let tls, let socket {
            // Best effort: announce the end (close_notify) if the socket takes it right away.
            tls.close()
            let notify = tls.pendingCiphertext()
            if !notify.isEmpty { _ = notify.withUnsafeBytes { try? socket.write($0) } }
        }
        tls = nil
        if let registration { loop.deregister(registration) }
        registration = nil
        interest = []
        writes.removeAll()
        socket?.close()
        socket = nil
    }

    // MARK: Timers

    func armTimer(after duration: Duration, _ fire: @escaping () -> Void) {
        cancelTimer()
        timer = loop.scheduleTimer(at: .now() + duration) { [self] in
            timer = nil
            fire()
        }
    }

    func cancelTimer() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
    }

    /// Fails the request when no byte moved for `timeout`; rescheduled lazily instead of on every read.
    func armRequestIdleTimer(_ timeout: Duration) {
        cancelTimer()
        timer = loop.scheduleTimer(at: lastActivity + timeout) { [self] in
            timer = nil
            guard machine.activeRequest != nil else { return }
            if !readingPaused, Deadline.now() - lastActivity >= timeout {
                run(machine.failActiveRequest(.timedOut("no bytes for \(timeout)")))
            } else {
                armRequestIdleTimer(timeout)
            }
        }
    }

    private func armIdleConnectionTimer() {
        armTimer(after: idleConnectionTimeout) { [self] in
            transport.idleTimeoutFired(self)
        }
    }
}
