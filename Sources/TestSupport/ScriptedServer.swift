// ScriptedServer: a loopback server whose every connection runs a script on its own thread.

// MARK: - ScriptedServer

/// A server whose every connection runs a script (closure) on its own thread.
///
/// Bound to 127.0.0.1 on a kernel-chosen port. Every read and write of a connection times out after
/// 5 s. When the script returns, the connection is closed (FIN) unless the script closed or reset it.
public final class ScriptedServer: Sendable {
    private let listener: LoopbackListener

    /// Starts listening; `script` runs once per accepted connection, on that connection's thread.
    public init(_ script: @escaping @Sendable (ScriptedConnection) throws -> Void) throws {
        listener = try LoopbackListener(serve: script)
    }

    deinit {
        listener.stop()
    }

    // MARK: Observing

    /// The port on 127.0.0.1.
    public var port: Int { listener.port }
    /// Connections accepted so far.
    public var connectionCount: Int { listener.connectionCount }
    /// The largest number of connections open at the same time.
    public var peakConcurrentConnections: Int { listener.peakConcurrentConnections }
    /// Every request read by `readRequest()` (or `readRequestHead()`) on any connection, in order.
    public var requests: [ReceivedRequest] { listener.requests }
    /// Descriptions of the errors thrown by scripts, in order.
    public var scriptErrors: [String] { listener.errors }

    // MARK: Stopping

    /// Closes the listener and all connections and joins all threads. Idempotent; also run by deinit.
    public func stop() {
        listener.stop()
    }
}
