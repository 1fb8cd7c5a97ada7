// Socket: a non-blocking TCP socket owned by one event loop.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A non-blocking TCP socket. Owned by one loop (not Sendable).
///
/// Created close-on-exec with `TCP_NODELAY`. Calls on a closed socket throw `EBADF` instead of
/// touching a descriptor number that may belong to someone else by now.
public final class Socket {
    /// The descriptor, or -1 once closed. Unchecked exclusivity: only the owning loop reads and writes it (each
    /// read and write checked cost about 80 instructions, two per small request).
    @exclusivity(unchecked) public private(set) var fd: Int32
    /// The address family the socket was created for.
    public let family: SocketAddress.Family
    /// The address `connect(to:)` was given, and whether that connect completed: `remoteAddress()` then
    /// answers without a `getpeername` (a TCP peer is the address connected to).
    private var connectTarget: SocketAddress?
    private var isConnected = false

    // MARK: Life cycle

    /// Creates a non-blocking, close-on-exec TCP socket with `TCP_NODELAY`.
    public init(family: SocketAddress.Family) throws(IOError) {
        let fd = try Syscall.socket(family: SocketAddress.domain(of: family))
        do throws(IOError) {
            try Syscall.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: Int32(1))
        } catch {
            Syscall.close(fd)
            throw error
        }
        self.fd = fd
        self.family = family
    }

    deinit {
        close()
    }

    /// Closes the fd once (idempotent). With `reset: true` sets SO_LINGER 0 first (sends RST).
    public func close(reset: Bool = false) {
        if let fd = release(reset: reset) { Syscall.close(fd) }
    }

    /// Closes as `close(reset:)` does, but leaves the close(2) to `loop`, which makes it at the end of its
    /// current iteration (`EventLoop.closeAfterIteration(_:)`); to this socket it is closed at once. On
    /// `loop`'s thread, with the descriptor deregistered from it.
    public func close(reset: Bool = false, after loop: EventLoop) {
        if let fd = release(reset: reset) { loop.closeAfterIteration(fd) }
    }

    /// The descriptor this socket gives up (nil when already closed), SO_LINGER 0 set first for a reset; the
    /// socket reads -1 from now on.
    private func release(reset: Bool) -> Int32? {
        guard fd >= 0 else {
            return nil
        }
        if reset { setLingerZero() }
        defer { fd = -1 }
        return fd
    }

    /// SO_LINGER 0: the close sends RST.
    private func setLingerZero() {
        do {
            try Syscall.setOption(fd, level: SOL_SOCKET, name: SO_LINGER, value: linger(l_onoff: 1, l_linger: 0))
        } catch {
            // Without the option the close is graceful instead: still a close.
        }
    }

    /// Sends FIN: the peer reads end of stream, this side can still read. Errors (not connected,
    /// already shut down, closed) are ignored.
    public func shutdownWrite() {
        guard fd >= 0 else {
            return
        }
        do {
            try Syscall.shutdownWrite(fd)
        } catch {
            // ENOTCONN: nothing to shut down.
        }
    }

    // MARK: Connecting

    /// true: connected now; false: in progress (wait for writable, then finishConnect()).
    public func connect(to address: SocketAddress) throws(IOError) -> Bool {
        let fd = try openDescriptor("connect")
        connectTarget = address
        isConnected = try address.withSockAddr { (pointer, length) throws(IOError) -> Bool in
            try Syscall.connect(fd, pointer, length)
        }
        return isConnected
    }

    /// Whether a connect in progress has succeeded already, asked without waiting. A connect to this host's own
    /// addresses usually has: the loopback handshake runs within `connect` itself. One `getpeername`, which
    /// answers only for a connected socket (a `poll` for writability and `SO_ERROR` took two system calls); false
    /// while the connect is in progress, once it failed (the socket then turns writable and `finishConnect()`
    /// throws the error) and on a closed socket.
    public func connectSucceeded() -> Bool {
        guard address(peer: true) != nil else { return false }
        isConnected = true
        return true
    }

    /// Completes a connect that was in progress once the socket is writable: throws the connect's
    /// error (`SO_ERROR`), e.g. `ECONNREFUSED`.
    public func finishConnect() throws(IOError) {
        let fd = try openDescriptor("connect")
        let error = try Syscall.getIntOption(fd, level: SOL_SOCKET, name: SO_ERROR)
        if error != 0 {
            throw IOError(errno: error, call: "connect")
        }
        isConnected = true
    }

    // MARK: Reading and writing

    /// Reads into `buffer` (not empty): the byte count, 0 at end of stream, or `.wouldBlock`.
    /// A reset connection throws `ECONNRESET`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> IOResult<Int> {
        precondition(buffer.count > 0, "Socket.read needs room for at least one byte")
        return try Syscall.receive(try openDescriptor("read"), buffer)
    }

    /// Writes some of `bytes`: the count written, or `.wouldBlock`. A broken connection throws
    /// `EPIPE` or `ECONNRESET` (never raises SIGPIPE).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) -> IOResult<Int> {
        try Syscall.send(try openDescriptor("send"), bytes)
    }

    // MARK: Addresses

    /// The local address, or nil when unbound or closed.
    public func localAddress() -> SocketAddress? {
        address(peer: false)
    }

    /// The peer's address, or nil when not connected or closed.
    public func remoteAddress() -> SocketAddress? {
        if isConnected, fd >= 0, let connectTarget {
            return connectTarget
        }
        return address(peer: true)
    }

    // MARK: Helpers

    private func openDescriptor(_ call: String) throws(IOError) -> Int32 {
        guard fd >= 0 else {
            throw IOError(errno: EBADF, call: call)
        }
        return fd
    }

    private func address(peer: Bool) -> SocketAddress? {
        guard fd >= 0 else {
            return nil
        }
        var storage = sockaddr_storage()
        do {
            try Syscall.socketName(fd, peer: peer, into: &storage)
        } catch {
            return nil
        }
        return withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0) }
        }
    }
}
