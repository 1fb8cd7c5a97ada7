// UnacceptedListener: a port on 127.0.0.1 whose connection attempts never complete.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - UnacceptedListener

/// A port on 127.0.0.1 where `connect` never completes, like a host that drops SYNs — without leaving
/// loopback.
///
/// A listener with a backlog of 0 never accepts; one connection of its own fills the accept queue, and
/// Linux drops every later SYN while the queue is full, so a client's connect stays in SYN_SENT (it keeps
/// retrying) until it gives up. `stop()` closes both sockets (pending connects then fail); idempotent.
public final class UnacceptedListener: Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    /// The listener and the connection that fills its queue, until `stop()`.
    private let descriptors: LockedBox<[Int32]>

    /// Starts listening and fills the accept queue.
    public init() throws {
        let (listener, port) = try PosixSocket.listenOnLoopback(backlog: 0)
        let filler: Int32
        do {
            filler = try PosixSocket.connectToLoopback(port: port)
        } catch {
            close(listener)
            throw error
        }
        self.port = port
        self.descriptors = LockedBox([listener, filler])
    }

    deinit {
        stop()
    }

    /// Closes the listener and its own connection. Idempotent.
    public func stop() {
        let open = descriptors.withLock { descriptors in
            defer { descriptors = [] }
            return descriptors
        }
        open.forEach { close($0) }
    }
}
