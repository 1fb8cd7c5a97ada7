import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: writing the request
//
// The head is queued at once; the body follows it (the request machine decides what goes next), or first
// waits for `100 Continue` (at most `PreparedRequest.continueWait`). A piece of the body is queued only
// when the write queue is empty: an in-memory body's next slice at once, a streamed body's next piece from
// its producer, whose answer hops back onto the loop (one `produce` outstanding at most). On HTTPS, bytes
// are encrypted as they are queued. Time spent waiting for a producer counts as idle time for the
// request's idle timeout (only bytes moving on the socket reset it). Loop thread only.

extension HTTP1Connection {
    func startWriting(_ request: PreparedRequest) {
        parser.expectResponse(requestMethod: request.request.head.method,
                              acceptsSwitchingProtocols: request.request.webSocket != nil,
                              reportsChunks: request.request.reportsChunks)
        lastActivity = loop.now()
        startMetrics(for: request)
        armRequestIdleTimer(request.request.idleTimeout)
        if request.request.reportsConnection {
            post(.connected(connectionInfo(for: request)), to: request)
        }
        if let producers = request.bodyProducers {
            guard let producer = producers.producerForAttempt() else {
                run(machine.failActiveRequest(.bodyStreamFailed("the body stream cannot be produced")))
                return
            }
            machine.withRequest { $0.attach(BodyProducer(producer: producer)) }
        }
        if request.request.tracesBytes { post(.headSent(request.encodedHead), to: request) }
        enqueue(request.encodedHead)
        if request.expectsContinue {
            continueTimer = loop.scheduleTimer(at: loop.now() + request.continueWait) { [self] in
                continueTimer = nil
                releaseBodyAfterContinue()
            }
        }
        flush()
        // Bytes that arrived while idle were caught by the read path; a response may already be buffered
        // if the server answered very fast, so parse what is there.
        if !machine.isClosed, parser.bufferedByteCount > 0 { drainParser() }
    }

    /// `100 Continue` arrived, or the wait for it timed out: the body may go.
    func releaseBodyAfterContinue() {
        cancelContinueTimer()
        machine.withRequest { $0.continueReceived() }
        flush()
    }

    /// A sink for one `produce` call: its answer hops onto this loop, where the machine takes it only if it
    /// still waits for exactly that answer.
    func makeBodySink(answer: UInt64) -> TransportBodySink {
        TransportBodySink { [self] reply in
            loop.execute {
                self.run(self.machine.producerAnswered(reply, number: answer))
                self.flush()
            }
        }
    }

    // MARK: Queueing and flushing

    /// Queues request bytes, `payload` of them body bytes: traced and counted as plaintext, encrypted
    /// first on an HTTPS connection.
    func enqueue(_ bytes: [UInt8], payload: Int = 0) {
        guard !bytes.isEmpty else { return }
        bytesWritten += Int64(bytes.count)
        if let request = machine.activeRequest, request.request.tracesBytes { post(.wireWrite(bytes), to: request) }
        do throws(TLSError) {
            try core.queue(bytes, payload: payload)
        } catch {
            run(machine.failActiveRequest(.secureConnectionFailed(error)))
        }
    }

    /// Writes what the socket takes, asking the machine for the body's next piece each time the queue
    /// empties; then reports body progress, and the end of the request's write half once the body is all
    /// written.
    func flush() {
        do throws(IOError) {
            while core.isOpen {
                if core.hasQueuedWrites {
                    let result = try core.flush { _ in
                        machine.withRequest { $0.wroteBytes() }
                        lastActivity = loop.now()
                    }
                    if result == .wouldBlock { break }
                }
                run(machine.nextBodyPiece())
                // Nothing queued: the body waits (for its producer, or for `100 Continue`) or is done.
                if !core.hasQueuedWrites { break }
            }
        } catch {
            channelFailed(error, in: .writing)
            return
        }
        // A failure while queueing (TLS, producer) closed the connection.
        guard core.isOpen else { return }
        reportBodyBytesSent()
        refreshInterest()
        guard core.isOpen else { return }
        if !core.hasQueuedWrites, machine.awaitsWriteFinished {
            if metrics.requestEnd == nil { metrics.requestEnd = loop.now().uptimeNanoseconds }
            machine.withRequest { $0.writeFinished() }
        }
    }

    private func reportBodyBytesSent() {
        let sent = core.takeSentPayload()
        // Nothing of a body left (a request without one): the request's machine is not touched.
        guard sent > 0, let request = machine.activeRequest,
              let total = machine.withRequest({ $0.bodyBytesWritten(sent) }) ?? nil else { return }
        post(.bodyBytesSent(total), to: request)
    }
}
