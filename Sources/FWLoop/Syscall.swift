// The one chokepoint for system calls in FWLoop (STYLE.md principle 8; model: swift-nio System.swift).
// FWNetworkMonitor's netlink and file calls go through it too (`Syscall` and its core are `package`).
//
// Every call goes through `Syscall.run`: `EINTR` is retried, `EAGAIN` / `EWOULDBLOCK` become
// `.wouldBlock`, `errno` is read at once, `EBADF` and `EFAULT` crash (a bad descriptor or pointer is a
// bug in our code, never the peer's doing), anything else is thrown as `IOError(errno:call:)`.

import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

package enum Syscall {
    // MARK: Core

    /// Runs `body` (a call returning -1 and setting errno on failure) with the rules above.
    @inline(__always)
    package static func run<T: FixedWidthInteger>(
        _ call: StaticString,
        _ body: () -> T
    ) throws(IOError) -> IOResult<T> {
        while true {
            let result = body()
            if result != -1 {
                return .processed(result)
            }
            let error = Glibc.errno
            switch error {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                return .wouldBlock
            default:
                throw failure(error, call)
            }
        }
    }

    /// Like `run`, for calls that never block: a would-block answer is an error too.
    @inline(__always)
    package static func runNeverBlocking<T: FixedWidthInteger>(
        _ call: StaticString,
        _ body: () -> T
    ) throws(IOError) -> T {
        switch try run(call, body) {
        case .processed(let value):
            return value
        case .wouldBlock:
            throw IOError(errno: EAGAIN, call: String(describing: call))
        }
    }

    /// Turns an errno into the error to throw, crashing on our own bugs.
    package static func failure(_ error: Int32, _ call: StaticString) -> IOError {
        let ioError = IOError(errno: error, call: String(describing: call))
        if error == EBADF || error == EFAULT {
            preconditionFailure("\(ioError): bad descriptor or address, a bug in FWLoop or its caller")
        }
        return ioError
    }

    // MARK: Descriptors

    /// `close`. Never retried: on Linux the descriptor is released even when close reports
    /// `EINTR`, `EIO` or `ENOSPC`, so only `EBADF` (our bug) is acted on.
    package static func close(_ fd: Int32) {
        guard Glibc.close(fd) == -1 else {
            return
        }
        let error = Glibc.errno
        if error == EBADF {
            _ = failure(error, "close")
        }
    }

    /// Reads a socket into `buffer` with `recv`; 0 means end of stream. (`read` on a socket goes through the
    /// file layer first, `fdget_pos`'s position lock and the permission and range checks: about 2 µs more
    /// kernel time per request in a profile of new connections.)
    static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> IOResult<Int> {
        try run("recv") { Glibc.recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// Writes `bytes` with `send(MSG_NOSIGNAL)`, so a broken pipe is `EPIPE` and never `SIGPIPE`.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(IOError) -> IOResult<Int> {
        try run("send") { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    // MARK: Sockets

    /// A non-blocking, close-on-exec TCP socket of `family` (`AF_INET` / `AF_INET6`).
    static func socket(family: Int32) throws(IOError) -> Int32 {
        try runNeverBlocking("socket") { fw_socket_stream(family) }
    }

    /// Starts a connect; true when connected now, false when in progress (`EINPROGRESS`).
    ///
    /// `EINTR` means in progress as well: retrying a connect after a signal would fail with `EALREADY`.
    static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) throws(IOError) -> Bool {
        if Glibc.connect(fd, address, length) == 0 {
            return true
        }
        let error = Glibc.errno
        switch error {
        case EINPROGRESS, EINTR:
            return false
        default:
            throw failure(error, "connect")
        }
    }

    /// Reads an `Int32` socket option.
    static func getIntOption(_ fd: Int32, level: Int32, name: Int32) throws(IOError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try runNeverBlocking("getsockopt") { Glibc.getsockopt(fd, level, name, &value, &length) }
        return value
    }

    /// Sets a socket option from a value of any plain type.
    static func setOption<V: BitwiseCopyable>(_ fd: Int32, level: Int32, name: Int32, value: V) throws(IOError) {
        let length = socklen_t(MemoryLayout<V>.size)
        _ = try runNeverBlocking("setsockopt") {
            withUnsafePointer(to: value) { Glibc.setsockopt(fd, level, name, $0, length) }
        }
    }

    /// `shutdown(SHUT_WR)`.
    static func shutdownWrite(_ fd: Int32) throws(IOError) {
        _ = try runNeverBlocking("shutdown") { Glibc.shutdown(fd, Int32(SHUT_WR)) }
    }

    /// Fills `storage` from `getsockname` or `getpeername` (`peer`).
    static func socketName(_ fd: Int32, peer: Bool, into storage: inout sockaddr_storage) throws(IOError) {
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                peer ? Glibc.getpeername(fd, address, &length) : Glibc.getsockname(fd, address, &length)
            }
        }
        if result == -1 {
            throw failure(Glibc.errno, peer ? "getpeername" : "getsockname")
        }
    }

    // MARK: epoll, eventfd and timerfd

    /// A close-on-exec epoll instance.
    static func epollCreate() throws(IOError) -> Int32 {
        try runNeverBlocking("epoll_create1") { fw_epoll_create() }
    }

    /// `epoll_ctl` with `EPOLL_CTL_ADD`, `_MOD` or `_DEL`.
    static func epollControl(
        _ epfd: Int32, op: Int32, fd: Int32, events: UInt32, data: UInt64
    ) throws(IOError) {
        _ = try runNeverBlocking("epoll_ctl") { fw_epoll_ctl(epfd, op, fd, events, data) }
    }

    /// Waits for events. A signal ends the wait early with no events (the caller recomputes its
    /// timeout) instead of restarting it with a stale one.
    static func epollWait(
        _ epfd: Int32, into events: UnsafeMutableBufferPointer<fw_epoll_event>, timeoutMilliseconds: Int32
    ) throws(IOError) -> Int {
        let count = fw_epoll_wait(epfd, events.baseAddress, Int32(events.count), timeoutMilliseconds)
        if count == -1 {
            let error = Glibc.errno
            if error == EINTR {
                return 0
            }
            throw failure(error, "epoll_wait")
        }
        return Int(count)
    }

    /// A close-on-exec, non-blocking eventfd with counter 0.
    static func eventfdCreate() throws(IOError) -> Int32 {
        try runNeverBlocking("eventfd") { fw_eventfd_create() }
    }

    /// Adds 1 to the eventfd counter. A full counter (would block) already means "signalled"; any
    /// other failure means a bad descriptor or buffer, our bug.
    static func eventfdSignal(_ fd: Int32) {
        var one: UInt64 = 1
        do {
            _ = try run("write") { Glibc.write(fd, &one, MemoryLayout<UInt64>.size) }
        } catch {
            preconditionFailure("\(error) on an eventfd")
        }
    }

    /// A close-on-exec, non-blocking timerfd on CLOCK_MONOTONIC, disarmed.
    static func timerfdCreate() throws(IOError) -> Int32 {
        try runNeverBlocking("timerfd_create") { fw_timerfd_create() }
    }

    /// Arms the timerfd to expire once at `deadline` (absolute, CLOCK_MONOTONIC), or disarms it (nil).
    static func timerfdSet(_ fd: Int32, to deadline: Deadline?) throws(IOError) {
        _ = try runNeverBlocking("timerfd_settime") { fw_timerfd_set(fd, deadline?.uptimeNanoseconds ?? 0) }
    }

    /// Resets the eventfd (or timerfd) counter to 0. An empty counter (would block) is fine; any other
    /// failure means a bad descriptor or buffer, our bug.
    static func eventfdDrain(_ fd: Int32) {
        var value: UInt64 = 0
        do {
            _ = try run("read") { Glibc.read(fd, &value, MemoryLayout<UInt64>.size) }
        } catch {
            preconditionFailure("\(error) on an eventfd")
        }
    }
}
