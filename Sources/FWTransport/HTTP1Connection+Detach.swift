import FWLoop

// MARK: - HTTP1Connection: handing the connection over to a stream
//
// A data task whose delegate answered its response with `.becomeStream` takes the connection out of HTTP:
// while its request is still the one running here (its response not complete), the socket, the TLS engine
// and the bytes the parser holds unparsed go into a `StreamChannel` on the same loop. The body events posted
// before go out first, then the channel is handed over, then the request ends (`cancelled`, which the task
// that became a stream no longer hears) on a connection that is not reusable, so the pool forgets it without
// closing anything. A request that is not running here any more gets nil. Loop thread only.

extension HTTP1Connection {
    func detachStream(_ id: RequestID, completion: @escaping @Sendable (StreamChannel?) -> Void) {
        loop.preconditionInEventLoop()
        guard machine.activeRequest?.id == id, let socket, writes.isEmpty else { return completion(nil) }
        cancelTimer()
        cancelContinueTimer()
        let leftover = parser.abandonResponse()
        stopWatchingSocket()
        let channel = StreamChannel(socket: socket, tls: tls, loop: loop, transport: transport, host: key.host,
                                    port: key.port, received: leftover)
        self.socket = nil
        tls = nil
        flushOutbox()
        completion(channel)
        run(machine.failActiveRequest(.cancelled))
    }
}
