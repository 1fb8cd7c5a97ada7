// FaultProxy: an in-process TCP proxy on 127.0.0.1 that relays to a real server and spoils the relay on
// purpose (delay, throttle, truncate, reset, blackhole, hold, accept-and-hold, close when idle).

// MARK: - FaultProxy

/// A TCP proxy between a client and a server on 127.0.0.1 that injects one fault into the connections it
/// relays (see `Fault`): the client connects to `port`, the proxy connects to `upstreamPort` and relays
/// bytes both ways until the fault says otherwise.
///
/// Each accepted connection runs on its own thread (a non-blocking relay polled every few milliseconds) and
/// takes the fault set when it was accepted: setting `fault` changes the connections accepted from then on.
/// `stop()` shuts every connection down and joins its thread; idempotent, also run by deinit.
public final class FaultProxy: Sendable {
    private let listener: LoopbackListener
    private let currentFault: LockedBox<Fault>

    /// The server's port on 127.0.0.1.
    public let upstreamPort: Int

    /// Starts relaying connections made to `port` to `upstreamPort`, spoiling them with `fault`.
    public init(upstreamPort: Int, fault: Fault = .none) throws {
        let faults = LockedBox(fault)
        self.currentFault = faults
        self.upstreamPort = upstreamPort
        self.listener = try LoopbackListener { connection in
            let fault = faults.withLock { $0 }
            try FaultRelay(client: connection, fault: fault).run(upstreamPort: upstreamPort)
        }
    }

    deinit {
        listener.stop()
    }

    /// The port clients connect to, on 127.0.0.1.
    public var port: Int { listener.port }

    /// The fault of connections accepted from now on.
    public var fault: Fault {
        get { currentFault.withLock { $0 } }
        set { currentFault.withLock { $0 = newValue } }
    }

    /// Connections accepted so far.
    public var connectionCount: Int { listener.connectionCount }

    /// Client connections the proxy still holds open.
    public var openConnectionCount: Int { listener.openConnectionCount }

    /// Descriptions of relay failures (the upstream refused, a system call failed).
    public var errors: [String] { listener.errors }

    /// Shuts every connection down, joins the threads and closes the listener. Idempotent.
    public func stop() {
        listener.stop()
    }
}
