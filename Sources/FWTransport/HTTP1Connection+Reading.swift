import FWLoop
import FWTLS
import FWWire

// MARK: - HTTP1Connection: reading the response
//
// Plaintext is read straight into the parser's buffer (the read is the only copy); HTTPS ciphertext goes
// into `cipherBuffer`, through the engine, then into the parser. Every complete parser event becomes an
// input of the machine, whose action `run` carries out. Loop thread only.

extension HTTP1Connection {
    // MARK: IOHandler

    func handleIO(_ events: IOEvents) {
        loop.preconditionInEventLoop()
        if socket == nil { return }
        if events.contains(.writable) { flush() }
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) { readAvailable() }
    }

    private func readAvailable() {
        // A few reads per wake-up, so one busy connection cannot starve the others on this loop.
        for _ in 0..<4 {
            guard let socket else { return }
            let result: IOResult<Int>
            do throws(IOError) {
                result = try read(from: socket)
            } catch {
                run(machine.connectionLost(.connectionLost("the connection was reset: \(error)", underlying: error)))
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                endOfStream()
                return
            case .processed(let count):
                lastActivity = loop.now()
                if let tls {
                    if machine.isConnecting { advanceHandshake() } else { decryptAvailable(tls) }
                }
                drainParser()
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
            result = try cipherBuffer.withUnsafeMutableBytes { buffer in
                Result { () throws(IOError) in try socket.read(into: buffer) }
            }.get()
            if case .processed(let count) = result, count > 0 {
                cipherBuffer.withUnsafeBytes { bytes in
                    tls.receive(ciphertext: UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                }
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

    /// Plaintext of the response arrived: count it and trace it (the caller feeds the parser).
    func noteReceived(_ bytes: UnsafeRawBufferPointer) {
        guard let request = machine.activeRequest else { return }
        if metrics.responseStart == nil { metrics.responseStart = TransportMetrics.now() }
        bytesRead += Int64(bytes.count)
        if request.request.tracesBytes { post([.wireRead(Array(bytes))], to: request) }
    }

    /// The peer ended its side (TCP EOF, or TLS close_notify): a close-delimited body ends here, anything
    /// else in flight is cut short; the connection closes.
    func peerFinishedSending() {
        parser.feedEndOfStream()
        drainParser()
        run(machine.connectionLost(.connectionLost("the server closed the connection")))
    }

    /// Turns every complete parser event into machine input.
    func drainParser() {
        while !machine.isClosed {
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
                metrics.responseEnd = TransportMetrics.now()
                metrics.responseBodyBytes = bytesRead - Int64(parser.bufferedByteCount) - metrics.responseHeaderBytes
                run(machine.receivedEnd(trailers: trailers, keepAlive: keepAlive,
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
        metrics.requestStart = TransportMetrics.now()
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
