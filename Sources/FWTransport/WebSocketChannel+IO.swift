import FWLoop
import FWTLS
import FWWire

// MARK: - WebSocketChannel: reading, writing, closing
//
// Reading: ciphertext through the engine (or plaintext straight) into the state machine, whose events are
// pulled one at a time (`pump`): messages go to the delegate while it asked for them, else they are parked
// (up to `parkLimit` bytes, then reading stops);
// reading stops; pings are answered; pongs release the oldest `sendPing`; the peer's close is answered and
// ends the channel once the answer is written. Writing: frames are queued (encrypted first on TLS) and
// written as the socket takes them; a send completes when the socket took its last byte. Loop thread only.

extension WebSocketChannel {
    // MARK: Starting

    func begin(_ delegate: any WebSocketChannelDelegate) {
        guard self.delegate == nil else { return }
        // Aborted before it started: the delegate still hears the end.
        if let outcome { return delegate.webSocketChannel(self, didFinish: outcome) }
        self.delegate = delegate
        guard startWatching() else { return }
        // Records that came with the handshake's response may wait in the engine.
        if let tls = core.tls { decrypt(tls) }
        pump()
        flush()
    }

    // MARK: IOHandler and ChannelDriver

    /// Called by the loop with the socket's readiness.
    public func handleIO(_ events: IOEvents) {
        loop.preconditionInEventLoop()
        handleChannelIO(events)
    }

    /// Whether decoding waits for the receiver: parked messages reached the limit and the connection is open.
    private var waitsForDemand: Bool { parkedBytes >= parkLimit && machine.isOpen }

    /// Not while parked messages wait for demand (a hang-up is read even then: the kernel reports it whatever
    /// the interest).
    var wantsBytes: Bool { !waitsForDemand }

    func receivePlaintext(upTo maxLength: Int,
                          using read: (UnsafeMutableRawBufferPointer) throws(IOError) -> Int) throws(IOError) {
        let count = try readBuffer.withUnsafeMutableBytes { buffer in
            Result { () throws(IOError) in try read(UnsafeMutableRawBufferPointer(rebasing: buffer[..<maxLength])) }
        }.get()
        readBuffer.withUnsafeBytes { machine.feed(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    func channelReceived() {
        if let tls = core.tls { decrypt(tls) }
        pump()
    }

    func channelReadingStopped() {
        flush()
    }

    /// The peer ended its side: what was read is still decoded.
    func channelPeerEnded() {
        machine.feedEndOfStream()
        pump()
    }

    func channelFailed(_ error: IOError, in operation: ChannelOperation) {
        switch operation {
        case .reading:
            let lost = TransportError.connectionLost("the connection was reset: \(error)", underlying: error)
            finish(WebSocketClosure(received: receivedClose, error: lost))
        case .writing:
            // While closing (a protocol error, the peer's close) that reason stands; a peer gone meanwhile
            // only cut the close short.
            let lost = TransportError.connectionLost("writing failed: \(error)", underlying: error)
            finish(pendingClosure ?? WebSocketClosure(received: receivedClose, error: lost))
        case .watching:
            finish(WebSocketClosure(received: receivedClose,
                                    error: .connectionLost("cannot watch the socket: \(error)", underlying: error)))
        }
    }

    // MARK: Reading

    /// Moves the engine's plaintext into the machine; a close_notify is the end of the stream.
    private func decrypt(_ tls: TLSEngine) {
        do throws(TLSError) {
            _ = try tls.readPlaintext { plaintext in machine.feed(plaintext) }
            core.queueCiphertext()
            if tls.receivedCloseNotify { notePeerEnded() }
        } catch {
            finish(WebSocketClosure(received: receivedClose, error: .secureConnectionFailed(error)))
        }
    }

    /// Pulls the machine's events until it needs more bytes, a message waits for demand, or the channel
    /// ends.
    func pump() {
        while !finished, !waitsForDemand {
            let event: WebSocketEvent?
            do throws(WebSocketError) {
                event = try machine.next()
            } catch {
                failed(error)
                return
            }
            guard let event else {
                // Nothing more will come: after the peer's close that is the end, else the stream was cut.
                if core.peerEnded { finish(WebSocketClosure(received: receivedClose, error: receivedClose == nil
                    ? .connectionLost("the WebSocket connection closed without a close frame") : nil)) }
                return
            }
            switch event {
            case .text(let text):
                arrived(.text(text))
            case .binary(let bytes):
                arrived(.binary(bytes))
            case .ping(let payload):
                var pong: [UInt8] = []
                encoder.encodePong(payload, into: &pong)
                queue(pong)
            case .pong:
                if !pongWaiters.isEmpty { pongWaiters.removeFirst()(nil) }
            case .closeReceived(let frame):
                receivedClose = frame
                // The echo when we had not closed yet (nil when this answers our close).
                if let echo = machine.close(frame) { queueClose(echo) }
                closeWhenFlushed(WebSocketClosure(received: frame, error: nil))
                return
            }
        }
    }

    /// A message for the delegate, now or when it asks.
    private func arrived(_ message: WebSocketMessage) {
        guard demand > 0, parked.isEmpty else {
            // After our close the socket is read whatever the demand: memory stays bounded by dropping.
            if !machine.isOpen, parkedBytes >= parkLimit { return }
            parked.append(message)
            parkedBytes += Self.size(of: message)
            refreshInterest()
            return
        }
        demand -= 1
        delegate?.webSocketChannel(self, didReceive: message)
    }

    /// Delivers parked messages while there is demand for them, then decodes and reads on.
    func deliverParked() {
        guard !parked.isEmpty, demand > 0 else { return }
        while !parked.isEmpty, demand > 0 {
            let message = parked.removeFirst()
            parkedBytes -= Self.size(of: message)
            demand -= 1
            delegate?.webSocketChannel(self, didReceive: message)
        }
        if finished {
            reportEndIfDrained()
        } else {
            pump()
            flush()
        }
    }

    /// What a parked message counts against `parkLimit` (at least one byte, so empty ones count too).
    private static func size(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): max(1, text.utf8.count)
        case .binary(let bytes): max(1, bytes.count)
        }
    }

    /// The peer broke the protocol, or the stream ended without a close: our close with the rule's code (when
    /// one may still be sent), then the end.
    private func failed(_ error: WebSocketError) {
        let transportError: TransportError = error.isPrematureEnd
            ? .connectionLost("the WebSocket connection closed without a close frame", underlying: error)
            : .webSocketFailed(error)
        if let frame = machine.close(WebSocketCloseFrame(code: error.closeCode)) { queueClose(frame) }
        closeWhenFlushed(WebSocketClosure(received: receivedClose, error: transportError))
    }

    // MARK: Writing

    /// Encodes and queues a message; `completion` runs once the socket took it.
    func enqueue(_ message: WebSocketMessage, completion: @escaping Completion) {
        guard !finished, machine.isOpen else {
            completion(.connectionLost("the WebSocket connection is closing or closed"))
            return
        }
        var frames: [UInt8] = []
        let opcode: WebSocketOpcode
        var payload: [UInt8]
        switch message {
        case .text(let text):
            opcode = .text
            payload = Array(text.utf8)
        case .binary(let bytes):
            opcode = .binary
            payload = bytes
        }
        if let deflater {
            payload = payload.withUnsafeBytes { deflater.compress($0) }
        }
        payload.withUnsafeBytes { bytes in
            encoder.encodeMessage(opcode, payload: bytes, isCompressed: deflater != nil, into: &frames)
        }
        queue(frames)
        guard !finished else { return }
        sendCompletions.append((core.bytesQueued, completion))
        flush()
    }

    /// Sends a ping whose pong `completion` waits for.
    func ping(completion: @escaping Completion) {
        guard !finished, machine.isOpen else {
            completion(.connectionLost("the WebSocket connection is closing or closed"))
            return
        }
        var frame: [UInt8] = []
        encoder.encodePing([], into: &frame)
        queue(frame)
        guard !finished else { return }
        pongWaiters.append(completion)
        flush()
    }

    /// Our close, when none was sent yet: the peer's answer is awaited for `closeTimeout` at most (read
    /// whatever the demand).
    func startClosing(_ frame: WebSocketCloseFrame) {
        guard !finished, let close = machine.close(frame) else { return }
        closedFirst = true
        queueClose(close)
        closeTimer = loop.scheduleTimer(at: loop.now() + closeTimeout) { [self] in
            closeTimer = nil
            finish(WebSocketClosure(received: receivedClose,
                                    error: .timedOut("the peer did not answer the close within \(closeTimeout)")))
        }
        flush()
        pump()
    }

    private func queueClose(_ frame: WebSocketCloseFrame) {
        var bytes: [UInt8] = []
        encoder.encodeClose(frame, into: &bytes)
        queue(bytes)
    }

    /// Queues frames, encrypting them first on TLS.
    private func queue(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !finished else { return }
        do throws(TLSError) {
            try core.queue(bytes)
        } catch {
            finish(WebSocketClosure(received: receivedClose, error: .secureConnectionFailed(error)))
        }
    }

    /// Writes what the socket takes, completes the sends it took whole, and closes once drained when asked.
    func flush() {
        guard !finished, writeQueued() else { return }
        while let first = sendCompletions.first, first.end <= core.bytesWritten {
            sendCompletions.removeFirst()
            first.completion(nil)
        }
        if !core.hasQueuedWrites, closesWhenFlushed, let closure = pendingClosure {
            finish(closure)
            return
        }
        refreshInterest()
    }

    // MARK: Ending

    /// Ends the channel with `closure` once what is queued (a close frame) is written; `closeTimeout` bounds
    /// the wait.
    private func closeWhenFlushed(_ closure: WebSocketClosure) {
        guard !finished else { return }
        pendingClosure = closure
        closesWhenFlushed = true
        if closeTimer == nil {
            closeTimer = loop.scheduleTimer(at: loop.now() + closeTimeout) { [self] in
                closeTimer = nil
                finish(closure)
            }
        }
        flush()
    }

    /// Ends the channel (once): the socket closes, waiting sends and pings fail; the delegate hears the end
    /// (the peer's close, then `didFinish`) once the messages parked before it were asked for.
    func finish(_ closure: WebSocketClosure) {
        guard !finished else { return }
        outcome = closure
        if let closeTimer { loop.cancelTimer(closeTimer) }
        closeTimer = nil
        core.close()
        let error = closure.error ?? .connectionLost("the WebSocket connection closed")
        let sends = sendCompletions
        let pings = pongWaiters
        sendCompletions = []
        pongWaiters = []
        for send in sends { send.completion(error) }
        for ping in pings { ping(error) }
        reportEndIfDrained()
    }

    /// Once the channel finished and no parked message is left: the delegate hears the peer's close (if one
    /// came) and the end, and is let go. After our close the parked messages go out first, unasked.
    func reportEndIfDrained() {
        guard let outcome, let delegate else { return }
        if closedFirst {
            let unasked = parked
            parked = []
            parkedBytes = 0
            for message in unasked { delegate.webSocketChannel(self, didReceive: message) }
        }
        guard parked.isEmpty else { return }
        self.delegate = nil
        if let receivedClose { delegate.webSocketChannel(self, didReceiveClose: receivedClose) }
        delegate.webSocketChannel(self, didFinish: outcome)
    }

    /// `abort`: the connection drops at once and parked messages with it.
    func drop(_ error: TransportError) {
        parked = []
        parkedBytes = 0
        finish(WebSocketClosure(received: receivedClose, error: error))
        reportEndIfDrained()
    }
}
