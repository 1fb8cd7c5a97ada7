import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: writing the request
//
// The head is queued at once; the body follows it (`RequestBodyStateMachine`), or first waits for
// `100 Continue` (at most `PreparedRequest.continueTimeout`). A piece of the body is queued only when the
// write queue is empty: an in-memory body's next slice at once, a streamed body's next piece from its
// producer, whose answer hops back onto the loop (one `produce` outstanding at most). On HTTPS, bytes
// are encrypted as they are queued. Time spent waiting for a producer counts as idle time for the
// request's idle timeout (only bytes moving on the socket reset it). Loop thread only.

extension HTTP1Connection {
    func startWriting(_ request: PreparedRequest) {
        parser.expectResponse(requestMethod: request.request.head.method)
        lastActivity = .now()
        startMetrics(for: request)
        armRequestIdleTimer(request.request.idleTimeout)
        let info = ConnectionInfo(id: id, isReused: machine.isReused, localAddress: addresses.local,
                                  remoteAddress: addresses.remote)
        post(.connected(info), to: request)
        requestBody = RequestBodyStateMachine(body: request.request.body, waitsForContinue: request.expectsContinue)
        bodyBytesSent = 0
        if let producers = request.bodyProducers {
            guard let producer = producers.producerForAttempt() else {
                run(machine.failActiveRequest(.bodyStreamFailed("the body stream cannot be produced")))
                return
            }
            bodyProducer = producer
        }
        if request.request.tracesBytes { post(.headSent(request.encodedHead), to: request) }
        enqueue(request.encodedHead)
        if request.expectsContinue {
            continueTimer = loop.scheduleTimer(at: .now() + PreparedRequest.continueTimeout) { [self] in
                continueTimer = nil
                releaseBodyAfterContinue()
            }
        }
        flush()
        // Bytes that arrived while idle were caught by the read path; a response may already be buffered
        // if the server answered very fast, so parse what is there.
        if !machine.isClosed, parser.bufferedByteCount > 0 { drainParser() }
    }

    // MARK: Body lifecycle

    /// `100 Continue` arrived, or the wait for it timed out: the body may go.
    func releaseBodyAfterContinue() {
        cancelContinueTimer()
        requestBody?.continueReceived()
        flush()
    }

    /// A final response arrived: a body not yet all handed out is never finished (the connection, whose
    /// request is then not fully framed, will not be reused), and a producer still running is stopped.
    func finalResponseArrived() {
        cancelContinueTimer()
        requestBody?.stop()
        stopBodyProducer()
    }

    /// The request ended: its body stops where it is and its producer is stopped.
    func endRequestBody() {
        cancelContinueTimer()
        requestBody = nil
        stopBodyProducer()
    }

    private func cancelContinueTimer() {
        if let continueTimer { loop.cancelTimer(continueTimer) }
        continueTimer = nil
    }

    /// Stops the producer once; an answer still on its way is ignored.
    private func stopBodyProducer() {
        bodyAnswerNumber &+= 1
        let producer = bodyProducer
        bodyProducer = nil
        producer?.stop()
    }

    // MARK: Body pieces

    /// Queues the next piece of the body when one is ready now; true when bytes were queued.
    private func queueNextBodyPiece() -> Bool {
        guard let action = requestBody?.nextPiece() else { return false }
        return runBodyAction(action)
    }

    /// Runs what the body machine decided; true when bytes were queued.
    @discardableResult
    private func runBodyAction(_ action: RequestBodyStateMachine.Action) -> Bool {
        switch action {
        case .none:
            return false
        case .write(let bytes, let payload):
            enqueue(bytes, payload: payload)
            return true
        case .produce(let maxLength):
            guard let bodyProducer else { preconditionFailure("produce(\(maxLength)) without a producer on \(id)") }
            bodyProducer.produce(maxLength: maxLength, into: makeBodySink())
            return false
        case .finish(let last):
            stopBodyProducer()
            enqueue(last)
            return !last.isEmpty
        case .fail(let reason):
            stopBodyProducer()
            run(machine.failActiveRequest(.bodyStreamFailed(reason)))
            return false
        }
    }

    /// A sink for one `produce` call: its answer hops onto this loop and counts only while the
    /// connection still waits for exactly that answer.
    private func makeBodySink() -> TransportBodySink {
        bodyAnswerNumber &+= 1
        let number = bodyAnswerNumber
        return TransportBodySink { [self] answer in
            loop.execute { self.producerAnswered(answer, number: number) }
        }
    }

    private func producerAnswered(_ answer: TransportBodySink.Answer, number: UInt64) {
        loop.preconditionInEventLoop()
        guard number == bodyAnswerNumber, bodyProducer != nil, requestBody != nil else { return }
        bodyAnswerNumber &+= 1
        let action: RequestBodyStateMachine.Action?
        switch answer {
        case .bytes(let bytes): action = requestBody?.produced(bytes)
        case .finish: action = requestBody?.finished()
        case .fail(let reason): action = requestBody?.failed(reason)
        }
        if let action { runBodyAction(action) }
        flush()
    }

    // MARK: Queueing and flushing

    /// Queues request bytes, `payload` of them body bytes: traced and counted as plaintext, encrypted
    /// first on an HTTPS connection.
    func enqueue(_ bytes: [UInt8], payload: Int = 0) {
        guard !bytes.isEmpty else { return }
        bytesWritten += Int64(bytes.count)
        if let current, current.request.tracesBytes { post(.wireWrite(bytes), to: current) }
        guard let tls else {
            writes.append(bytes, payload: payload)
            return
        }
        do throws(TLSError) {
            try tls.send(plaintext: bytes)
            writes.append(tls.pendingCiphertext(), payload: payload)
        } catch {
            run(machine.failActiveRequest(.secureConnectionFailed(error)))
        }
    }

    /// Writes what the socket takes, queueing the body's next piece each time the queue empties; then
    /// reports body progress, and the end of the request's write half once the body is all written.
    func flush() {
        do throws(IOError) {
            while let socket {
                if !writes.isEmpty {
                    let result = try writes.flush(to: socket) { _ in
                        machine.wroteBytes()
                        lastActivity = .now()
                    }
                    if result == .wouldBlock { break }
                }
                guard queueNextBodyPiece() else { break }
            }
            // A failure while queueing (TLS, producer) closed the connection.
            guard socket != nil else { return }
            reportBodyBytesSent()
            try updateInterest()
            if writes.isEmpty, requestBody?.isComplete == true {
                if metrics.requestEnd == nil { metrics.requestEnd = TransportMetrics.now() }
                run(machine.writeFinished())
            }
        } catch {
            run(machine.connectionLost(.connectionLost("writing the request failed: \(error)", underlying: error)))
        }
    }

    private func reportBodyBytesSent() {
        let sent = writes.takeSentPayload()
        guard sent > 0, let current else { return }
        bodyBytesSent += Int64(sent)
        post(.bodyBytesSent(bodyBytesSent), to: current)
    }
}
