import FWLoop

// MARK: - HTTPTransport: raw streams
//
// Stream tasks need a TCP connection outside the pool: either a new one (`openStream`: resolved and connected
// as a pooled connection is, Happy Eyeballs and the connect timeout included, never through a proxy), or the
// connection of a running request whose response the task turned into a stream (`detachStream`). Either way
// the `StreamChannel` lives on a loop of `Configuration.channelLoops` (else of the transport's group: a detached
// connection then stays on its loop) and uses the transport's TLS context.

extension HTTPTransport {
    /// Connects to `host`:`port` within `connectTimeout`, on a loop of `Configuration.channelLoops` (else of
    /// the transport's group); `completion` runs on that loop's thread with the channel (not started) or the
    /// error (`cannotFindHost`, `cannotConnect`, `timedOut`).
    public func openStream(host: String, port: Int, connectTimeout: Duration,
                           completion: @escaping @Sendable (Result<StreamChannel, TransportError>) -> Void) {
        let loop = configuration.channelLoops?.next() ?? group.next()
        loop.execute { [self] in
            let key = ConnectionKey(scheme: "tcp", host: host, port: port)
            let establisher = ConnectionEstablisher(key: key, loop: loop, timeout: connectTimeout) { result, _ in
                completion(result.map { established in
                    // Watched only once started: the attempt's registration (writable, level-triggered) goes now.
                    let socket = established.unregistered(on: loop)
                    return StreamChannel(core: ChannelCore(socket: socket, loop: loop, hangUp: .closesReadHalf),
                                         received: [], transport: self, host: host, port: port)
                })
            }
            establisher.start()
        }
    }

    /// Takes the connection of request `id` out of the pool as a stream, if the request still runs on one;
    /// `completion` runs on the connection's loop thread (or at once) with the channel (not started), or nil.
    /// The channel lives on a loop of `Configuration.channelLoops` when set (its methods hop there). The events
    /// the request posted before go to its delegate first; the request then ends without a further event.
    public func detachStream(_ id: RequestID, completion: @escaping @Sendable (StreamChannel?) -> Void) {
        let connection: HTTP1Connection? = state.withLock { state in
            guard let key = state.entries[id]?.prepared.request.key,
                  let connectionID = state.pool.connection(leasedTo: id, key: key) else { return nil }
            return state.connections[connectionID]
        }
        guard let connection else { return completion(nil) }
        connection.loop.execute { connection.detachStream(id, deliver: completion) }
    }

    /// The loop a channel handed over by a connection on `loop` runs on: one of `Configuration.channelLoops`,
    /// else `loop` itself.
    func channelLoop(handedOverFrom loop: EventLoop) -> EventLoop {
        configuration.channelLoops?.next() ?? loop
    }
}
