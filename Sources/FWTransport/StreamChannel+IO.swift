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
        if let outcome {
            delegate.streamChannel(self, didFinishWith: outcome)
            return
        }
        guard let socket else { return }
        self.delegate = delegate
        if !prefix.isEmpty { received.insert(contentsOf: prefix, at: 0) }
        do throws(IOError) {
            registration = try loop.register(fd: socket.fd, interest: [], handler: self)
        } catch {
            run(machine.fail(.connectionLost("cannot watch the socket: \(error)", underlying: error)))
            return
        }
        serveReads()
        refreshInterest()
    }

    // MARK: IOHandler

    /// Called by the loop with the socket's readiness.
    public func handleIO(_ events: IOEvents) {
        loop.preconditionInEventLoop()
        guard socket != nil else { return }
        if events.contains(.writable) { flush() }
        let broken = events.contains(.hangup) || events.contains(.error)
        if peerEnded, broken, let registration {
            // Nothing more can be read and the kernel keeps reporting it: stop watching (a write fails at once).
            loop.deregister(registration)
            self.registration = nil
            interest = []
            return
        }
        if events.contains(.readable) || broken { readAvailable() }
    }

    // MARK: Reading

    /// Whether the socket must be read now: a read waits for bytes the buffer lacks, or the security layer
    /// is exchanging records.
    private var wantsBytes: Bool {
        guard !peerEnded, machine.readsOpen || machine.holdsWrites else { return false }
        switch machine.security {
        case .handshaking?, .awaitingTrust?, .closingTLS?: return true
        default: break
        }
        guard let first = reads.first else { return false }
        return received.count < max(first.minLength, 1)
    }

    private func readAvailable() {
        for _ in 0..<4 {
            guard let socket, !machine.isFinished, !peerEnded else { break }
            let result: IOResult<Int>
            do throws(IOError) {
                result = try readBuffer.withUnsafeMutableBytes { buffer in
                    Result { () throws(IOError) in try socket.read(into: buffer) }
                }.get()
            } catch {
                run(machine.fail(.connectionLost("the connection was reset: \(error)", underlying: error)))
                return
            }
            guard case .processed(let count) = result else { break }
            if count == 0 {
                peerFinished()
                break
            }
            readBuffer.withUnsafeBytes { bytes in
                let piece = UnsafeRawBufferPointer(rebasing: bytes[..<count])
                if let tls { tls.receive(ciphertext: piece) } else { received.append(contentsOf: piece) }
            }
            if tls != nil { processTLS() }
            if count < HTTP1Connection.readSize || !wantsBytes { break }
        }
        serveReads()
        refreshInterest()
    }

    /// Runs what the engine can with the ciphertext received: the handshake, or decrypting.
    func processTLS() {
        guard let tls, let security = machine.security else { return }
        do throws(TLSError) {
            switch security {
            case .handshaking:
                var progress = try tls.handshake()
                // A server asking for a certificate gets none: stream tasks present no client identity.
                if progress == .clientIdentityRequested {
                    tls.provideClientIdentity(nil)
                    progress = try tls.handshake()
                }
                queue(tls.pendingCiphertext())
                flush()
                run(machine.handshakeAdvanced(complete: progress == .complete))
            case .awaitingTrust, .drainingForTLS, .plain:
                return
            case .secure, .drainingForPlain, .closingTLS:
                _ = try tls.readPlaintext { received.append(contentsOf: $0) }
                queue(tls.pendingCiphertext())
                if tls.receivedCloseNotify {
                    if security == .closingTLS { run(machine.closeNotifyReceived()) } else { peerFinished() }
                }
            }
        } catch {
            queue(tls.pendingCiphertext())
            flush()
            run(machine.fail(.secureConnectionFailed(error)))
        }
    }

    /// The peer ended its side: nothing more is read. Its end reaches the machine (and the reads) once the
    /// bytes before it were read; at once while the security layer changes (there it is a failure).
    func peerFinished() {
        guard !peerEnded else { return }
        peerEnded = true
        let settled = machine.security == .plain || machine.security == .secure
        if received.isEmpty || !settled { run(machine.endOfStream()) }
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
                refreshInterest()
            }
        }
        reads.append(read)
        guard delegate != nil else { return }
        serveReads()
        refreshInterest()
    }

    /// Completes the reads the buffer (or the end of the stream) can answer, oldest first.
    func serveReads() {
        guard delegate != nil, machine.servesReads || !machine.readsOpen else { return }
        // The peer's end waited for the bytes before it to be read.
        if peerEnded, received.isEmpty, machine.readsOpen { return run(machine.endOfStream()) }
        while let first = reads.first {
            let ended = !machine.readsOpen || peerEnded
            guard received.count >= first.minLength && (!received.isEmpty || first.minLength == 0) || ended else {
                return
            }
            reads.removeFirst()
            if let timer = first.timer { loop.cancelTimer(timer) }
            let count = min(first.maxLength, received.count)
            let bytes = Array(received[0..<count])
            received.removeFirst(count)
            first.completion(.success(StreamReadResult(bytes: bytes, atEOF: ended && received.isEmpty)))
            if peerEnded, received.isEmpty, machine.readsOpen { return run(machine.endOfStream()) }
        }
    }

    func shutReading() {
        run(machine.closeRead())
        serveReads()
        refreshInterest()
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
            queue(pendingWrites[index].bytes, plaintext: true)
            pendingWrites[index].end = bytesQueued
            pendingWrites[index].bytes = []
            if machine.isFinished { return }
        }
        flush()
    }

    /// Queues wire bytes; `plaintext` ones are encrypted first when TLS is on.
    func queue(_ bytes: [UInt8], plaintext: Bool = false) {
        guard !bytes.isEmpty, !machine.isFinished else { return }
        var wire = bytes
        if plaintext, let tls {
            do throws(TLSError) {
                try tls.send(plaintext: bytes)
                wire = tls.pendingCiphertext()
            } catch {
                run(machine.fail(.secureConnectionFailed(error)))
                return
            }
        }
        bytesQueued += wire.count
        writes.append(wire)
    }

    /// Writes what the socket takes, completes the writes it took whole, and tells the machine when the
    /// queue drained.
    func flush() {
        guard let socket, !machine.isFinished else { return }
        do throws(IOError) {
            if !writes.isEmpty {
                _ = try writes.flush(to: socket) { written in bytesWritten += written.count }
            }
        } catch {
            run(machine.fail(.connectionLost("writing failed: \(error)", underlying: error)))
            return
        }
        while let first = pendingWrites.first, let end = first.end, end <= bytesWritten {
            pendingWrites.removeFirst()
            if let timer = first.timer { loop.cancelTimer(timer) }
            first.completion(nil)
        }
        if writes.isEmpty, pendingWrites.allSatisfy({ $0.end == nil }) { run(machine.writesDrained()) }
        refreshInterest()
    }

    func shutWriting() {
        guard machine.acceptsWrites else { return }
        run(machine.closeWrite())
        // On TLS, close_notify announces the end first (queued after the writes before it).
        if machine.security == .secure, let tls {
            tls.close()
            queue(tls.pendingCiphertext())
        }
        flush()
    }

    /// Readable while bytes are wanted; writable while bytes wait.
    func refreshInterest() {
        guard let registration, !machine.isFinished else { return }
        // Both directions ended (the peer's, and ours with its bytes written): nothing left to watch, and the
        // hang-up the kernel keeps reporting must not spin the loop.
        if peerEnded, !machine.acceptsWrites, writes.isEmpty {
            loop.deregister(registration)
            self.registration = nil
            interest = []
            return
        }
        var wanted: IOInterest = wantsBytes ? .readable : []
        if !writes.isEmpty { wanted.insert(.writable) }
        guard wanted != interest else { return }
        do throws(IOError) {
            try loop.setInterest(wanted, for: registration)
            interest = wanted
        } catch {
            run(machine.fail(.connectionLost("cannot watch the socket: \(error)", underlying: error)))
        }
    }

    // MARK: TLS

    func beginTLS(trust: @escaping StreamTrustHandler) {
        let pending = !writes.isEmpty || pendingWrites.contains { $0.end != nil }
        trustHandler = trust
        run(machine.startTLS(writesPending: pending))
    }

    func endTLS() {
        let pending = !writes.isEmpty || pendingWrites.contains { $0.end != nil }
        run(machine.stopTLS(writesPending: pending))
    }

    private func makeEngine() {
        do throws(TLSError) {
            tls = try TLSEngine(context: transport.tlsContext().get(), serverName: host, port: port)
        } catch {
            run(machine.fail(.secureConnectionFailed(error)))
            return
        }
        processTLS()
        flush()
    }

    private func askTrust() {
        guard let tls, let trustHandler else { return }
        self.trustHandler = nil
        let trust = tls.makeServerTrust()
        let channel = self
        trustHandler(trust) { refusal in
            channel.loop.execute {
                channel.run(channel.machine.trustDecided(refusal: refusal))
            }
        }
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
            tls?.close()
            if let notify = tls?.pendingCiphertext() { queue(notify) }
            flush()
        case .unwrapped:
            let after = tls?.takeBytesAfterCloseNotify() ?? []
            tls = nil
            received.append(contentsOf: after)
            sendHeldWrites()
            serveReads()
        case .shutDownWrite(let thenFinish):
            socket?.shutdownWrite()
            delegate?.streamChannelWriteClosed(self)
            if thenFinish { finish(nil) }
        case .readClosed(let thenFinish):
            serveReads()
            delegate?.streamChannelReadClosed(self)
            if thenFinish { finish(nil) }
        case .finish(let error):
            finish(error)
        }
        refreshInterest()
    }

    /// Ends the channel (once): the socket closes, reads and writes waiting complete, the delegate hears
    /// the end and is let go.
    private func finish(_ error: TransportError?) {
        guard outcome == nil else { return }
        outcome = .some(error)
        if let registration { loop.deregister(registration) }
        registration = nil
        interest = []
        socket?.close(announcingEndOf: error == nil ? tls : nil, abandoningWrites: !writes.isEmpty)
        socket = nil
        tls = nil
        writes.removeAll()
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
