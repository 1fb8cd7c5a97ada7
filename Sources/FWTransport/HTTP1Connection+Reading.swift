import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: reading the response
//
// The channel core's read loop (ChannelDriver.swift) reads plaintext straight into the parser's buffer (the
// read is the only copy) and HTTPS ciphertext straight into the engine's inbound buffer; the engine decrypts
// straight into the parser's buffer. Every complete parser event becomes an input of the machine, whose
// action `run` carries out. A decoded body whose piece inflates to more than
// one slice stops reading and parsing: the rest comes out one slice per loop iteration while the task
// wants the response read (`decodeNextSlice`), then parsing and reading go on. Loop thread only.

extension HTTP1Connection {
    // MARK: IOHandler and ChannelDriver

    func handleIO(_ events: IOEvents) {
        loop.preconditionInEventLoop()
        handleChannelIO(events)
    }

    /// Not while the task paused reading or a decoded body still has slices to come out.
    var wantsBytes: Bool { !machine.isReadingPaused && !decodedOutputPending }

    /// Plaintext goes to the proxy's exchange while tunnelling, else straight into the parser's buffer.
    func receivePlaintext(upTo maxLength: Int,
                          using read: (UnsafeMutableRawBufferPointer) throws(IOError) -> Int) throws(IOError) {
        if machine.establishment == .tunnelling { return try readFromProxy(using: read) }
        try parser.feed(upTo: maxLength) { (room) throws(IOError) -> Int in
            let count = try read(room)
            noteReceived(UnsafeRawBufferPointer(rebasing: room[..<count]))
            return count
        }
    }

    func channelReceived() {
        if let tls = core.tls {
            if machine.isConnecting { advanceHandshake() } else { decryptAvailable(tls) }
        }
        drainParser()
        // Only bytes that moved the response on reset the idle timeout: interim responses do not.
        if machine.readsCountAsActivity { lastActivity = loop.now() }
    }

    func channelReadingStopped() {}

    /// The peer ended its side (TCP EOF, or TLS close_notify).
    func channelPeerEnded() {
        if machine.establishment == .tunnelling {
            run(machine.tunnelEndOfStream())
        } else if core.tls != nil, machine.isConnecting {
            run(machine.connectFailed(.secureConnectionFailed(
                .handshakeFailed(reason: "the server closed the connection during the TLS handshake"))))
        } else if let tls = core.tls, !tls.receivedCloseNotify, machine.activeRequest != nil {
            // Without close_notify the end of a TLS stream may be an attacker's: never a clean end.
            run(machine.connectionLost(.connectionLost("the TLS connection closed without close_notify")))
        } else {
            peerFinishedSending()
        }
    }

    func channelFailed(_ error: IOError, in operation: ChannelOperation) {
        switch operation {
        case .reading: run(machine.connectionLost(socketFailure("the connection was reset", error)))
        case .writing: run(machine.connectionLost(socketFailure("writing the request failed", error)))
        case .watching:
            run(machine.connectionLost(.connectionLost("the connection failed: \(error)", underlying: error)))
        }
    }

    /// A failed read or write: during the TLS handshake it fails the handshake (as an end of stream there
    /// does); otherwise the connection is lost.
    private func socketFailure(_ what: String, _ error: IOError) -> TransportError {
        guard core.tls != nil, machine.isConnecting else {
            return .connectionLost("\(what): \(error)", underlying: error)
        }
        return .secureConnectionFailed(.handshakeFailed(reason: "\(what) during the TLS handshake: \(error)"))
    }

    /// Plaintext of the response arrived: count it and trace it (the caller feeds the parser).
    func noteReceived(_ bytes: UnsafeRawBufferPointer) {
        guard let request = machine.activeRequest else { return }
        if metrics.responseStart == nil { metrics.responseStart = loop.now().uptimeNanoseconds }
        bytesRead += Int64(bytes.count)
        if request.request.tracesBytes { post(.wireRead(Array(bytes)), to: request) }
    }

    /// The peer's end is a clean one: a close-delimited body ends here, anything else in flight is cut short;
    /// the connection closes — once decoded output that waits is out.
    private func peerFinishedSending() {
        parser.feedEndOfStream()
        finishAfterPeerEnded()
    }

    /// Parses what is left after the peer's end, then closes (or waits, unwatched since the peer's end, for
    /// decoded output).
    private func finishAfterPeerEnded() {
        drainParser()
        guard !decodedOutputPending else { return }
        run(machine.connectionLost(.connectionLost("the server closed the connection")))
    }

    // MARK: Decoded output

    /// Takes the next decoded slice out at the next loop iteration (after this one's events went to the
    /// task, which may have asked to pause reading meanwhile).
    func scheduleDecoding() {
        guard !decodingScheduled else { return }
        decodingScheduled = true
        refreshInterest()
        loop.execute { [self] in
            decodingScheduled = false
            decodeNextSlice()
        }
    }

    /// One decoded slice out, if the task wants it now (a resumed task schedules the next one); once all
    /// is out, parsing and reading go on.
    private func decodeNextSlice() {
        guard decodedOutputPending, !machine.isReadingPaused else { return }
        lastActivity = loop.now()
        run(machine.nextDecodedSlice())
        if decodedOutputPending {
            scheduleDecoding()
        } else if core.peerEnded {
            finishAfterPeerEnded()
        } else {
            drainParser()
            refreshInterest()
        }
    }

    /// Turns every complete parser event into machine input.
    func drainParser() {
        while !machine.isClosed {
            if decodedOutputPending {
                scheduleDecoding()
                return
            }
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
                run(machine.receivedInformational(head))
            case .head(let head, _):
                metrics.responseHeaderBytes = bytesRead - Int64(parser.bufferedByteCount)
                run(machine.receivedHead(head))
            case .body(let bytes):
                run(machine.receivedBody(bytes))
            case .chunk(let size, let extensions):
                // Only for a request that asked for them (`reportsChunks`: the parser reports chunks only then).
                if let request = machine.activeRequest {
                    post(.chunk(size: size, extensions: extensions), to: request)
                }
            case .end(let trailers, let keepAlive):
                metrics.responseEnd = loop.now().uptimeNanoseconds
                metrics.responseBodyBytes = bytesRead - Int64(parser.bufferedByteCount) - metrics.responseHeaderBytes
                metrics.responseDeviations = parser.responseDeviations
                // A connection whose peer already ended its side is never kept for another request.
                run(machine.receivedEnd(trailers: trailers, keepAlive: keepAlive && !core.peerEnded,
                                        hasUnreadBytes: parser.bufferedByteCount > 0))
            }
        }
    }

    // MARK: Metrics

    func startMetrics(for request: PreparedRequest) {
        bytesWritten = 0
        bytesRead = 0
        // Without a reader the fields written as the request goes are never posted (`postEnding`).
        guard request.request.reportsMetrics else { return }
        noteAddresses()
        metrics = machine.isReused ? TransportMetrics() : establishment
        metrics.isReusedConnection = machine.isReused
        metrics.isProxyConnection = key.proxy != nil
        metrics.localAddress = establishment.localAddress
        metrics.remoteAddress = establishment.remoteAddress
        metrics.tls = establishment.tls
        metrics.requestStart = loop.now().uptimeNanoseconds
        metrics.requestHeaderBytes = Int64(request.encodedHead.count)
        metrics.pipelineReplays = request.pipelineReplays
    }

    /// Posts the events that end an attempt: its metrics, when its request asked for them, then `last`.
    func postEnding(of request: PreparedRequest, then last: TransportEvent? = nil) {
        if request.request.reportsMetrics { post(.metrics(finalMetrics()), to: request) }
        if let last { post(last, to: request) }
    }

    func finalMetrics() -> TransportMetrics {
        var final = metrics
        final.requestBodyBytes = max(0, bytesWritten - final.requestHeaderBytes)
        return final
    }
}
