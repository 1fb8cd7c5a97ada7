import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: TLS
//
// An HTTPS connection stays `connecting` through the handshake and the server-trust decision (which may
// ask the session delegate). Afterwards every byte goes through the engine both ways. Loop thread only.

extension HTTP1Connection {
    /// Runs the handshake as far as the bytes received allow; at the end, asks for the trust decision.
    func advanceHandshake() {
        guard let tls, machine.isConnecting, !awaitingTrust else { return }
        do throws(TLSError) {
            while true {
                let state = try tls.handshake()
                queueCiphertext()
                switch state {
                case .inProgress:
                    return
                case .clientIdentityRequested:
                    tls.provideClientIdentity(nil)
                case .complete:
                    establishment.secureConnectionEnd = TransportMetrics.now()
                    awaitingTrust = true
                    let connection = self
                    transport.evaluateServerTrust(tls.makeServerTrust(), key: key) { decision in
                        connection.loop.execute { connection.trustDecided(decision) }
                    }
                    return
                }
            }
        } catch {
            queueCiphertext()
            run(machine.connectFailed(.secureConnectionFailed(error)))
        }
    }

    func trustDecided(_ decision: ServerTrustDecision) {
        guard machine.isConnecting, socket != nil else { return }
        awaitingTrust = false
        cancelTimer()
        switch decision {
        case .trust:
            run(machine.connected())
        case .reject(let error):
            // A session cached during the handshake must not let a later connection skip this decision.
            tls?.discardSession()
            run(machine.connectFailed(.serverTrustRejected(error)))
        case .cancel:
            tls?.discardSession()
            run(machine.connectFailed(.cancelled))
        }
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
