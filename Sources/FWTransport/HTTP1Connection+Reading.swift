import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: reading the response
//
// Plaintext is read straight into the parser's buffer (the read is the only copy); HTTPS ciphertext is read
// straight into the engine's inbound buffer, and the engine decrypts straight into the parser's buffer. Every complete parser event becomes an
// input of the machine, whose action `run` carries out. A decoded body whose piece inflates to more than
// one slice stops reading and parsing: the rest comes out one slice per loop iteration while the task
// wants the response read (`decodeNextSlice`), then parsing and reading go on. Loop thread only.

extension HTTP1Connection {
    // MARK: IOHandler

    func handleIO(_ events: IOEvents) {
        loop.preconditionInEventLoop()
        if socket == nil { return }
        if events.contains(.writable) { flush() }
        // A hang-up or error is read at once, even while decoded output waits (it would be reported again and
        // again otherwise): the read fails, or finds the end of the stream.
        let broken = events.contains(.hangup) || events.contains(.error)
        if events.contains(.readable) || broken { readAvailable(evenWhileDecoding: broken) }
    }

    /// Reads what the socket holds now (a few reads at most) and feeds it on; nothing while a decoded body
    /// still has slices to come out, unless `evenWhileDecoding`.
    func readAvailable(evenWhileDecoding: Bool = false) {
        // A few reads per wake-up, so one busy connection cannot starve the others on this loop.
        for _ in 0..<4 {
            guard let socket, !peerEnded else { return }
            if decodedOutputPending, !evenWhileDecoding { return }
            let result: IOResult<Int>
            do throws(IOError) {
                result = try read(from: socket)
            } catch {
                run(machine.connectionLost(socketFailure("the connection was reset", error)))
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                endOfStream()
                return
            case .processed(let count):
                if let tls {
                    if machine.isConnecting { advanceHandshake() } else { decryptAvailable(tls) }
                }
                drainParser()
                // Only bytes that moved the response on reset the idle timeout: interim responses do not.
                if machine.inFlight?.readsCountAsActivity ?? true { lastActivity = loop.now() }
                if count < Self.readSize { return }
            }
        }
    }

    /// One read: ciphertext into the engine, or plaintext straight into the parser.
    private func read(from socket: Socket) throws(IOError) -> IOResult<Int> {
        var result = IOResult<Int>.wouldBlock
        if machine.establishment == .tunnelling {
            result = try readFromProxy(socket)
        } else if let tls {
            try tls.receiveCiphertext(upTo: Self.readSize) { (room) throws(IOError) -> Int in
                result = try socket.read(into: room)
                guard case .processed(let count) = result else { return 0 }
                return count
            }
        } else {
            try parser.feed(upTo: Self.readSize) { (room) throws(IOError) -> Int in
                result = try socket.read(into: room)
                guard case .processed(let count) = result else { return 0 }
                noteReceived(UnsafeRawBufferPointer(rebasing: room[..<count]))
                return count
            }
        }
        return result
    }

    /// The socket reached end of stream.
    private func endOfStream() {
        if machine.establishment == .tunnelling {
            run(machine.tunnelEndOfStream())
        } else if tls != nil, machine.isConnecting {
            run(machine.connectFailed(.secureConnectionFailed(
                .handshakeFailed(reason: "the server closed the connection during the TLS handshake"))))
        } else if let tls, !tls.receivedCloseNotify, machine.activeRequest != nil {
            // Without close_notify the end of a TLS stream may be an attacker's: never a clean end.
            run(machine.connectionLost(.connectionLost("the TLS connection closed without close_notify")))
        } else {
            peerFinishedSending()
        }
    }

    /// A failed read or write: during the TLS handshake it fails the handshake (as an end of stream there
    /// does); otherwise the connection is lost.
    func socketFailure(_ what: String, _ error: IOError) -> TransportError {
        guard tls != nil, machine.isConnecting else { return .connectionLost("\(what): \(error)", underlying: error) }
        return .secureConnectionFailed(.handshakeFailed(reason: "\(what) during the TLS handshake: \(error)"))
    }

    /// Plaintext of the response arrived: count it and trace it (the caller feeds the parser).
    func noteReceived(_ bytes: UnsafeRawBufferPointer) {
        guard let request = machine.activeRequest else { return }
        if metrics.responseStart == nil { metrics.responseStart = loop.now().uptimeNanoseconds }
        bytesRead += Int64(bytes.count)
        if request.request.tracesBytes { post([.wireRead(Array(bytes))], to: request) }
    }

    /// The peer ended its side (TCP EOF, or TLS close_notify): a close-delimited body ends here, anything
    /// else in flight is cut short; the connection closes — once decoded output that waits is out.
    func peerFinishedSending() {
        parser.feedEndOfStream()
        peerEnded = true
        finishAfterPeerEnded()
    }

    /// Parses what is left after the peer's end, then closes (or waits, unwatched, for decoded output).
    private func finishAfterPeerEnded() {
        drainParser()
        guard !decodedOutputPending else {
            // Nothing more will be read: stop watching the socket, whose end would be reported forever.
            stopWatchingSocket()
            return
        }
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
        } else if peerEnded {
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
            case .end(let trailers, let keepAlive):
                metrics.responseEnd = loop.now().uptimeNanoseconds
                metrics.responseBodyBytes = bytesRead - Int64(parser.bufferedByteCount) - metrics.responseHeaderBytes
                // A connection whose peer already ended its side is never kept for another request.
                run(machine.receivedEnd(trailers: trailers, keepAlive: keepAlive && !peerEnded,
                                        hasUnreadBytes: parser.bufferedByteCount > 0))
            }
        }
    }

    // MARK: Metrics

    func startMetrics(for request: PreparedRequest) {
        metrics = machine.isReused ? TransportMetrics() : establishment
        metrics.isReusedConnection = machine.isReused
        metrics.isProxyConnection = key.proxy != nil
        metrics.localAddress = establishment.localAddress
        metrics.remoteAddress = establishment.remoteAddress
        metrics.tls = establishment.tls
        metrics.requestStart = loop.now().uptimeNanoseconds
        metrics.requestHeaderBytes = Int64(request.encodedHead.count)
        bytesWritten = 0
        bytesRead = 0
    }

    func finalMetrics() -> TransportMetrics {
        var final = metrics
        final.requestBodyBytes = max(0, bytesWritten - final.requestHeaderBytes)
        return final
    }
}
