import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: TLS
//
// Carries out the machine's establishment steps for HTTPS: the engine is made once the socket connected,
// the handshake runs as bytes arrive, and the trust decision and the client-identity choice (which may ask
// a delegate, so the handshake pauses for them; the connect timeout keeps running) come back to the loop
// as machine inputs. Afterwards every byte goes through the engine both ways. Loop thread only.

extension HTTP1Connection {
    func startTLS() {
        do throws(TLSError) {
            try core.startTLS(context: transport.tlsContext().get(), host: key.host, port: key.port)
            if transport.tracesEstablishment(of: id) { core.tls?.recordHandshakeMessages() }
        } catch {
            run(machine.connectFailed(.secureConnectionFailed(error)))
            return
        }
        establishment.secureConnectionStart = loop.now().uptimeNanoseconds
        // The handshake (and the trust decision) share the connection's establishment deadline.
        armTimer(at: establishmentDeadline) { [self] in
            run(machine.connectFailed(.timedOut("connecting to \(key) with TLS took longer than \(connectTimeout)")))
        }
        advanceHandshake()
    }

    /// Runs the handshake as far as the bytes received allow (only while the machine says it runs).
    func advanceHandshake() {
        guard let tls = core.tls, machine.establishment == .handshaking else { return }
        let progress: TLSEngine.HandshakeState
        do throws(TLSError) {
            progress = try core.handshake(.ask)
        } catch {
            flush()
            run(machine.connectFailed(.secureConnectionFailed(error)))
            return
        }
        flush()
        if progress == .complete {
            establishment.secureConnectionEnd = loop.now().uptimeNanoseconds
            establishment.tls = TLSConnectionMetrics(tls)
            // The handshake's messages are in the metrics; what the log gathers from now on is reported as it
            // is read (`decryptAvailable`).
            _ = tls.takeHandshakeMessages()
        }
        run(machine.handshakeAdvanced(progress))
    }

    func askForServerTrust() {
        askServerTrust({ trust, decide in transport.evaluateServerTrust(trust, for: self, decide: decide) },
                       decided: { connection, decision, trust in
                           connection.run(connection.machine.trustDecided(decision, peerTrust: trust))
                       })
    }

    func askForClientIdentity() {
        guard let tls = core.tls else { return }
        let connection = self
        transport.chooseClientIdentity(for: self, acceptableAuthorities: tls.acceptableClientCertificateAuthorities) {
            decision in connection.loop.execute { connection.clientIdentityChosen(decision) }
        }
    }

    private func clientIdentityChosen(_ decision: ClientIdentityDecision) {
        loop.preconditionInEventLoop()
        guard core.isOpen, core.tls?.isAwaitingClientIdentity == true else { return }
        run(machine.clientIdentityChosen(decision))
    }

    /// Moves whatever the TLS engine produced to the socket.
    func queueCiphertext() {
        guard core.tls?.hasPendingCiphertext == true else { return }
        core.queueCiphertext()
        flush()
    }

    /// Decrypts every complete record received so far straight into the parser's buffer (a body event
    /// covering a whole slice hands that buffer on without another copy). On a connection that records its
    /// TLS messages (made for a traced request) the handshake-protocol messages each read went through
    /// (NewSessionTicket, KeyUpdate, ...) are reported before the plaintext it returned.
    func decryptAvailable(_ tls: TLSEngine) {
        do throws(TLSError) {
            var filled = ChannelCore.readSize
            while filled == ChannelCore.readSize {
                filled = try parser.feed(upTo: ChannelCore.readSize) { (room) throws(TLSError) -> Int in
                    let count = try tls.readPlaintext(into: room)
                    noteHandshakeMessages(tls.takeHandshakeMessages())
                    noteReceived(UnsafeRawBufferPointer(rebasing: room[..<count]))
                    return count
                }
            }
            queueCiphertext()
            // close_notify is the end of the stream (the server may wait for ours before closing TCP).
            if tls.receivedCloseNotify { notePeerEnded() }
        } catch {
            queueCiphertext()
            run(machine.connectionLost(.secureConnectionFailed(error)))
        }
    }

    /// Handshake-protocol messages that came (or went) after the handshake: reported to the active request when
    /// it is traced, else dropped (the connection records them only when made for a traced request).
    private func noteHandshakeMessages(_ messages: [TLSHandshakeMessage]) {
        guard !messages.isEmpty, let request = machine.activeRequest, request.request.tracesBytes else { return }
        post(messages.map(TransportEvent.tlsMessage), to: request)
    }
}
