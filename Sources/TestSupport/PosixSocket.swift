// PosixSocket: the few blocking socket calls the loopback servers need, with errno turned into errors.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - PosixSocket

/// Helpers over plain blocking POSIX sockets on 127.0.0.1.
enum PosixSocket {
    /// Seconds every blocking read or write on a served connection may take.
    static let ioTimeout = 5.0

    /// Creates a listening TCP socket on 127.0.0.1 with a kernel-chosen port and room for `backlog`
    /// connections not accepted yet.
    static func listenOnLoopback(backlog: Int32 = 128) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError.systemCall("socket", errno: errno) }
        do {
            try setOption(descriptor, SOL_SOCKET, SO_REUSEADDR, Int32(1))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = in_addr_t(INADDR_LOOPBACK).bigEndian
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw TestSupportError.systemCall("bind", errno: errno) }
            guard listen(descriptor, backlog) == 0 else { throw TestSupportError.systemCall("listen", errno: errno) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    getsockname(descriptor, $0, &length)
                }
            }
            guard named == 0 else { throw TestSupportError.systemCall("getsockname", errno: errno) }
            return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Connects a new blocking TCP socket to 127.0.0.1:`port` (with Nagle's algorithm off).
    static func connectToLoopback(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError.systemCall("socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(INADDR_LOOPBACK).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw TestSupportError.systemCall("connect to 127.0.0.1:\(port)", errno: code)
        }
        try? setOption(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1))
        return descriptor
    }

    /// Bounds every later recv/send on `descriptor` by `seconds` and turns off Nagle's algorithm.
    static func configureAccepted(_ descriptor: Int32, timeout seconds: Double) throws {
        let whole = Int(seconds)
        let interval = timeval(tv_sec: whole, tv_usec: Int((seconds - Double(whole)) * 1_000_000))
        try setOption(descriptor, SOL_SOCKET, SO_RCVTIMEO, interval)
        try setOption(descriptor, SOL_SOCKET, SO_SNDTIMEO, interval)
        try setOption(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1))
    }

    /// Makes the next `close` of `descriptor` send RST instead of FIN.
    static func setAbortiveClose(_ descriptor: Int32) throws {
        try setOption(descriptor, SOL_SOCKET, SO_LINGER, linger(l_onoff: 1, l_linger: 0))
    }

    /// Marks `descriptor` close-on-exec, so child processes (the Python server) do not inherit it.
    static func setCloseOnExec(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    /// Sets one socket option from a value.
    private static func setOption<Value: BitwiseCopyable>(
        _ descriptor: Int32, _ level: Int32, _ name: Int32, _ value: Value
    ) throws {
        var value = value
        let result = setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Value>.size))
        guard result == 0 else { throw TestSupportError.systemCall("setsockopt", errno: errno) }
    }

    /// Turns the errno of a failed recv/send into an error.
    static func ioError(_ call: String, errno code: Int32) -> TestSupportError {
        switch code {
        case EAGAIN, EWOULDBLOCK: .timedOut
        case ECONNRESET, EPIPE: .connectionReset
        default: .systemCall(call, errno: code)
        }
    }
}
