import FWLoop
import FWTLS

// MARK: - StreamChannel: reading, writing, TLS, ending
//
// Reading: the socket is watched while a read waits for bytes it cannot have yet (or while a handshake or a
// TLS close runs); what arrives goes through the engine when TLS is on, into `received`, from which reads are
// served in order. Writing: bytes are encrypted when TLS is on and queued; held while the security layer
// changes. The machine's actions run in one place (`run`). Loop thread only.

extension StreamChannel {
    // MARK: Starting

    func begin(_ delegate: any StreamChannelDelegate, prefix: [UInt8]) {
        guard self.delegate == nil else { return }
        if let outcome { return delegate.streamChannel(self, didFinishWith: outcome) }
        self.delegate = delegate
        if !prefix.isEmpty { received.insert(contentsOf: prefix, at: 0) }
        guard startWatching() else { return }
        serveReads()
        updateInterest()
    }

    // MARK: IOHandler and ChannelDriver

    /// Called by the loop with the socket's readiness.
    public func handleIO(_ events: IOEvents) {
        loop.preconditionInEventLoop()
        handleChannelIO(events)
    }

    /// Whether the socket must be read now: a read waits for bytes the buffer lacks, or the security layer
    /// is exchanging records.
    var wantsBytes: Bool {
        guard !core.peerEnded, machine.readsOpen || machine.holdsWrites else { return false }
        switch machine.security {
        case .handshaking?, .awaitingTrust?, .closingTLS?: return true
        default: break
        }
        guard let first = reads.first else { return false }
        return received.count < max(first.minLength, 1)
    }

    func receivePlaintext(upTo maxLength: Int,
                          using read: (UnsafeMutableRawBufferPointer) throws(IOError) -> Int) throws(IOError) {
        let count = try readBuffer.withUnsafeMutableBytes { buffer in
            Result { () throws(IOError) in try read(UnsafeMutableRawBufferPointer(rebasing: buffer[..<maxLength])) }
        }.get()
        received.append(contentsOf: readBuffer[..<count])
    }

    func channelReceived() {
        if core.tls != nil { processTLS() }
    }

    func channelReadingStopped() {
        serveReads()
        updateInterest()
    }

    /// The peer ended its side: nothing more is read. Its end reaches the machine (and the reads) once the
    /// bytes before it were read; at once while the security layer changes (there it is a failure).
    func channelPeerEnded() {
        let settled = machine.security == .plain || machine.security == .secure
        if received.isEmpty || !settled { run(machine.endOfStream()) }
    }

    func channelFailed(_ error: IOError, in operation: ChannelOperation) {
        let what = switch operation {
        case .reading: "the connection was reset"
        case .writing: "writing failed"
        case .watching: "cannot watch the socket"
        }
        run(machine.fail(.connectionLost("\(what): \(error)", underlying: error)))
    }

    // MARK: Reading

    /// Runs what the engine can with the ciphertext received: the handshake, or decrypting.
    func processTLS() {
        guard let tls = core.tls, let security = machine.security else { return }
        do throws(TLSError) {
            switch security {
            case .handshaking:
                // A server asking for a certificate gets none: stream tasks present no client identity.
                let progress = try core.handshake(.sendNone)
                flush()
                run(machine.handshakeAdvanced(complete: progress == .complete))
            case .awaitingTrust, .drainingForTLS, .plain:
                return
            case .secure, .drainingForPlain, .closingTLS:
                _ = try tls.readPlaintext { received.append(contentsOf: $0) }
                core.queueCiphertext()
                if tls.receivedCloseNotify {
                    if security == .closingTLS { run(machine.closeNotifyReceived()) } else { notePeerEnded() }
                }
            }
        } catch {
            core.queueCiphertext()
            flush()
            run(machine.fail(.secureConnectionFailed(error)))
        }
    }

    func enqueueRead(minLength: Int, maxLength: Int, timeout: Duration?, completion: @escaping ReadCompletion) {
        if let outcome {
            // A clean end reads as the end of the stream; a failure fails every later read.
            if let error = outcome { return completion(.failure(error)) }
            return completion(.success(StreamReadResult(bytes: [], atEOF: true)))
        }
        let id = nextID
        nextID += 1
        var read = PendingRead(id: id, minLength: max(0, minLength), maxLength: max(1, maxLength),
                               completion: completion)
        if let timeout {
            read.timer = loop.scheduleTimer(at: loop.now() + timeout) { [self] in
                guard let index = reads.firstIndex(where: { $0.id == id }) else { return }
                let timedOut = reads.remove(at: index)
                timedOut.completion(.failure(.timedOut("no \(timedOut.minLength) bytes to read within \(timeout)")))
                updateInterest()
            }
        }
        reads.append(read)
        guard delegate != nil else { return }
        serveReads()
        updateInterest()
    }

    /// Completes the reads the buffer (or the end of the stream) can answer, oldest first.
    func serveReads() {
        guard delegate != nil, machine.servesReads || !machine.readsOpen else { return }
        // The peer's end waited for the bytes before it to be read.
        if core.peerEnded, received.isEmpty, machine.readsOpen { return run(machine.endOfStream()) }
        while let first = reads.first {
            let ended = !machine.readsOpen || core.peerEnded
            guard received.count >= first.minLength && (!received.isEmpty || first.minLength == 0) || ended else {
                return
            }
            reads.removeFirst()
            if let timer = first.timer { loop.cancelTimer(timer) }
            let count = min(first.maxLength, received.count)
            let bytes = Array(received[0..<count])
            received.removeFirst(count)
            first.completion(.success(StreamReadResult(bytes: bytes, atEOF: ended && received.isEmpty)))
            if core.peerEnded, received.isEmpty, machine.readsOpen { return run(machine.endOfStream()) }
        }
    }

    func shutReading() {
        run(machine.closeRead())
        serveReads()
        updateInterest()
    }

    // MARK: Writing

    func enqueueWrite(_ bytes: [UInt8], timeout: Duration?, completion: @escaping WriteCompletion) {
        if let outcome { return completion(outcome ?? .connectionLost("the stream is closed")) }
        guard machine.acceptsWrites else { return completion(.connectionLost("the stream's write side is closed")) }
        let id = nextID
        nextID += 1
        var write = PendingWrite(id: id, bytes: bytes, end: nil, completion: completion)
        if let timeout {
            write.timer = loop.scheduleTimer(at: loop.now() + timeout) { [self] in
                guard let index = pendingWrites.firstIndex(where: { $0.id == id }) else { return }
                pendingWrites[index].timer = nil
                let completion = pendingWrites[index].completion
                pendingWrites[index].completion = { _ in }
                completion(.timedOut("the socket did not take the write within \(timeout)"))
            }
        }
        pendingWrites.append(write)
        guard !machine.holdsWrites else { return }
        sendHeldWrites()
    }

    /// Queues (encrypting on TLS) every write not queued yet.
    func sendHeldWrites() {
        for index in pendingWrites.indices where pendingWrites[index].end == nil {
            queue(pendingWrites[index].bytes)
            pendingWrites[index].end = core.bytesQueued
            pendingWrites[index].bytes = []
            if machine.isFinished { return }
        }
        flush()
    }

    /// Queues plaintext, encrypted first when TLS is on.
    func queue(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !machine.isFinished else { return }
        do throws(TLSError) {
            try core.queue(bytes)
        } catch {
            run(machine.fail(.secureConnectionFailed(error)))
        }
    }

    /// Writes what the socket takes, completes the writes it took whole, and tells the machine when the
    /// queue drained.
    func flush() {
        guard !machine.isFinished, writeQueued() else { return }
        while let first = pendingWrites.first, let end = first.end, end <= core.bytesWritten {
            pendingWrites.removeFirst()
            if let timer = first.timer { loop.cancelTimer(timer) }
            first.completion(nil)
        }
        if !core.hasQueuedWrites, pendingWrites.allSatisfy({ $0.end == nil }) { run(machine.writesDrained()) }
        updateInterest()
    }

    func shutWriting() {
        guard machine.acceptsWrites else { return }
        run(machine.closeWrite())
        // On TLS, close_notify announces the end first (queued after the writes before it).
        if machine.security == .secure, let tls = core.tls {
            tls.close()
            core.queueCiphertext()
        }
        flush()
    }

    /// Readable while bytes are wanted; writable while bytes wait. Both directions ended (the peer's, and ours
    /// with its bytes written): nothing left to watch, and the hang-up the kernel keeps reporting must not spin
    /// the loop.
    func updateInterest() {
        guard !machine.isFinished else { return }
        if core.peerEnded, !machine.acceptsWrites, !core.hasQueuedWrites { return core.stopWatching() }
        refreshInterest()
    }

    // MARK: TLS

    func beginTLS(trust: @escaping StreamTrustHandler) {
        let pending = core.hasQueuedWrites || pendingWrites.contains { $0.end != nil }
        trustHandler = trust
        run(machine.startTLS(writesPending: pending))
    }

    func endTLS() {
        let pending = core.hasQueuedWrites || pendingWrites.contains { $0.end != nil }
        run(machine.stopTLS(writesPending: pending))
    }

    private func makeEngine() {
        do throws(TLSError) {
            try core.startTLS(context: transport.tlsContext().get(), host: host, port: port)
        } catch {
            run(machine.fail(.secureConnectionFailed(error)))
            return
        }
        processTLS()
        flush()
    }

    private func askTrust() {
        guard let trustHandler else { return }
        self.trustHandler = nil
        askServerTrust(trustHandler) { channel, refusal, _ in channel.run(channel.machine.trustDecided(refusal: refusal)) }
    }

    // MARK: Actions

    func run(_ action: StreamChannelStateMachine.Action) {
        switch action {
        case .none:
            return
        case .beginHandshake:
            makeEngine()
        case .askTrust:
            askTrust()
        case .secured:
            // Records that came with the end of the handshake may already hold plaintext.
            processTLS()
            sendHeldWrites()
            serveReads()
        case .sendCloseNotify:
            core.tls?.close()
            core.queueCiphertext()
            flush()
        case .unwrapped:
            received.append(contentsOf: core.removeTLS())
            sendHeldWrites()
            serveReads()
        case .shutDownWrite(let thenFinish):
            core.shutdownWrite()
            delegate?.streamChannelWriteClosed(self)
            if thenFinish { finish(nil) }
        case .readClosed(let thenFinish):
            serveReads()
            delegate?.streamChannelReadClosed(self)
            if thenFinish { finish(nil) }
        case .finish(let error):
            finish(error)
        }
        updateInterest()
    }

    /// Ends the channel (once): the socket closes, reads and writes waiting complete, the delegate hears
    /// the end and is let go.
    private func finish(_ error: TransportError?) {
        guard outcome == nil else { return }
        outcome = .some(error)
        core.close(announcingEnd: error == nil)
        let waitingReads = reads
        let waitingWrites = pendingWrites
        reads = []
        pendingWrites = []
        for read in waitingReads {
            if let timer = read.timer { loop.cancelTimer(timer) }
            if let error {
                read.completion(.failure(error))
            } else {
                let count = min(read.maxLength, received.count)
                let bytes = Array(received[0..<count])
                received.removeFirst(count)
                read.completion(.success(StreamReadResult(bytes: bytes, atEOF: received.isEmpty)))
            }
        }
        let writeError = error ?? .connectionLost("the stream closed before the write went out")
        for write in waitingWrites {
            if let timer = write.timer { loop.cancelTimer(timer) }
            write.completion(writeError)
        }
        let delegate = self.delegate
        self.delegate = nil
        delegate?.streamChannel(self, didFinishWith: error)
    }
}
