import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: writing the request
//
// The head is queued at once; the body follows it, or waits for `100 Continue` (at most
// `PreparedRequest.continueTimeout`). On HTTPS, bytes are encrypted as they are queued. Loop thread only.

extension HTTP1Connection {
    func startWriting(_ request: PreparedRequest) {
        parser.expectResponse(requestMethod: request.request.head.method)
        lastActivity = .now()
        startMetrics(for: request)
        armRequestIdleTimer(request.request.idleTimeout)
        let info = ConnectionInfo(id: id, isReused: machine.isReused,
                                  localAddress: socket?.localAddress()?.description,
                                  remoteAddress: socket?.remoteAddress()?.description)
        request.deliver(.connected(info))
        if request.request.tracesBytes { request.deliver(.headSent(request.encodedHead)) }
        enqueue(request.encodedHead)
        if let body = request.request.body {
            if request.expectsContinue {
                heldBody = body
                continueTimer = loop.scheduleTimer(at: .now() + PreparedRequest.continueTimeout) { [self] in
                    continueTimer = nil
                    releaseHeldBody()
                }
            } else {
                enqueue(body)
            }
        }
        flush()
        // Bytes that arrived while idle were caught by the read path; a response may already be buffered
        // if the server answered very fast, so parse what is there.
        if !machine.isClosed, parser.bufferedByteCount > 0 { drainParser() }
    }

    /// Sends the body that waited for `100 Continue` (the 100 came, or the wait timed out).
    func releaseHeldBody() {
        guard let body = heldBody else { return }
        heldBody = nil
        if let continueTimer { loop.cancelTimer(continueTimer) }
        continueTimer = nil
        enqueue(body)
        flush()
    }

    /// Queues request bytes: traced and counted as plaintext, encrypted first on an HTTPS connection.
    func enqueue(_ bytes: [UInt8]) {
        bytesWritten += Int64(bytes.count)
        if let current, current.request.tracesBytes { current.deliver(.wireWrite(bytes)) }
        guard let tls else {
            writes.append(bytes)
            return
        }
        do throws(TLSError) {
            try tls.send(plaintext: bytes)
            writes.append(tls.pendingCiphertext())
        } catch {
            run(machine.failActiveRequest(.secureConnectionFailed(error)))
        }
    }

    /// A final status arrived before `100 Continue`: the body is never sent (and the connection, whose
    /// request is then not fully framed, will not be reused).
    func dropHeldBody() {
        heldBody = nil
        if let continueTimer { loop.cancelTimer(continueTimer) }
        continueTimer = nil
    }

    func flush() {
        guard let socket, !writes.isEmpty else { return }
        do throws(IOError) {
            let result = try writes.flush(to: socket) { _ in
                machine.wroteBytes()
                lastActivity = .now()
            }
            switch result {
            case .flushed:
                try updateInterest()
                if heldBody == nil, current != nil {
                    metrics.requestEnd = TransportMetrics.now()
                    run(machine.writeFinished())
                }
            case .wouldBlock:
                try updateInterest()
            }
        } catch {
            run(machine.connectionLost(.connectionLost("writing the request failed: \(error)", underlying: error)))
        }
    }
}
