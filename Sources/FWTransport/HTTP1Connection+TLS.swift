import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: TLS
//
// An HTTPS connection stays `connecting` through the handshake, the server-trust decision and the
// choice of a client certificate (both may ask a delegate, so the handshake pauses for them; the
// connect timeout keeps running). Afterwards every byte goes through the engine both ways. Loop thread
// only.
//
// The server's trust is decided once per handshake, before anything of ours depends on it:
//   - no certificate request: when the handshake completes;
//   - the server asks for a client certificate: at that point (its chain is known), and only once it
//     is trusted is the identity handler asked; the handshake then completes without a second decision
//     (`TLSEngine.hasAnsweredClientIdentityRequest` says the decision was made).
// While a decision is pending (`awaitingTrust`, or the engine awaiting an identity) received records
// wait in the engine.

extension HTTP1Connection {
    /// Runs the handshake as far as the bytes received allow; asks for the decisions it needs.
    func advanceHandshake() {
        guard let tls, machine.isConnecting, !awaitingTrust, !tls.isAwaitingClientIdentity else { return }
        do throws(TLSError) {
            let state = try tls.handshake()
            queueCiphertext()
            switch state {
            case .inProgress:
                return
            case .clientIdentityRequested:
                askForServerTrust(tls)
            case .complete:
                establishment.secureConnectionEnd = TransportMetrics.now()
                establishment.tls = TLSConnectionMetrics(tls)
                if tls.hasAnsweredClientIdentityRequest {
                    // Trusted before the identity was chosen.
                    cancelTimer()
                    run(machine.connected())
                } else {
                    askForServerTrust(tls)
                }
            }
        } catch {
            queueCiphertext()
            run(machine.connectFailed(.secureConnectionFailed(error)))
        }
    }

    private func askForServerTrust(_ tls: TLSEngine) {
        awaitingTrust = true
        let connection = self
        transport.evaluateServerTrust(tls.makeServerTrust(), for: self) { decision in
            connection.loop.execute { connection.trustDecided(decision) }
        }
    }

    func trustDecided(_ decision: ServerTrustDecision) {
        guard let tls, machine.isConnecting, socket != nil else { return }
        awaitingTrust = false
        switch decision {
        case .trust where tls.isAwaitingClientIdentity:
            let connection = self
            transport.chooseClientIdentity(
                for: self, acceptableAuthorities: tls.acceptableClientCertificateAuthorities
            ) { decision in
                connection.loop.execute { connection.clientIdentityChosen(decision) }
            }
        case .trust:
            cancelTimer()
            run(machine.connected())
        case .reject(let error):
            // A session cached during the handshake must not let a later connection skip this decision.
            tls.discardSession()
            run(machine.connectFailed(.serverTrustRejected(error)))
        case .cancel:
            tls.discardSession()
            run(machine.connectFailed(.cancelled))
        }
    }

    func clientIdentityChosen(_ decision: ClientIdentityDecision) {
        guard let tls, machine.isConnecting, socket != nil, tls.isAwaitingClientIdentity else { return }
        switch decision {
        case .use(let identity):
            tls.provideClientIdentity(identity)
        case .continueWithoutIdentity:
            tls.provideClientIdentity(nil)
        case .cancel:
            tls.discardSession()
            run(machine.connectFailed(.cancelled))
            return
        }
        advanceHandshake()
    }

    /// Moves whatever the TLS engine produced to the socket.
    func queueCiphertext() {
        guard let tls, tls.hasPendingCiphertext else { return }
        writes.append(tls.pendingCiphertext())
        flush()
    }

    func decryptAvailable(_ tls: TLSEngine) {
        do throws(TLSError) {
            _ = try tls.readPlaintext { plaintext in
                noteReceived(plaintext)
                parser.feed(plaintext)
            }
            queueCiphertext()
            // close_notify is the end of the stream (the server may wait for ours before closing TCP).
            if tls.receivedCloseNotify { peerFinishedSending() }
        } catch {
            queueCiphertext()
            run(machine.connectionLost(.secureConnectionFailed(error)))
        }
    }
}
