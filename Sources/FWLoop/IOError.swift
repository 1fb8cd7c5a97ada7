// IOError and IOResult: what the syscall chokepoint (Syscall.swift) hands back to its callers.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - IOError

/// A failed system call: the `errno` it set and the name of the call.
///
/// Messages are for people; match on `errno` (or the predicates) in code.
public struct IOError: Error, Hashable, CustomStringConvertible {
    /// The error number the call reported.
    public let errno: Int32
    /// The name of the failed call, e.g. `"connect"`.
    public let call: String

    /// Creates an error for `call` failing with `errno`.
    public init(errno: Int32, call: String) {
        self.errno = errno
        self.call = call
    }

    /// A readable message: the call, the system's text for the error and the number.
    public var description: String {
        let text = strerror(errno).map { String(cString: $0) } ?? "unknown error"
        return "\(call) failed: \(text) (errno \(errno))"
    }

    /// True when the peer reset the connection (`ECONNRESET`) or it broke under a write (`EPIPE`).
    public var isConnectionReset: Bool {
        errno == ECONNRESET || errno == EPIPE
    }

    /// True when nobody listened at the address (`ECONNREFUSED`).
    public var isConnectionRefused: Bool {
        errno == ECONNREFUSED
    }

    /// True when the kernel had no route to the address (`ENETUNREACH`), or the route says the host is
    /// unreachable or its neighbour did not answer (`EHOSTUNREACH`).
    public var isNoRoute: Bool {
        errno == ENETUNREACH || errno == EHOSTUNREACH
    }
}

// MARK: - IOResult

/// The outcome of a non-blocking call: done with a value, or it would have blocked.
public enum IOResult<T> {
    /// The call completed with this value.
    case processed(T)
    /// The call would have blocked (`EAGAIN` / `EWOULDBLOCK`); wait for readiness and retry.
    case wouldBlock
}

extension IOResult: Sendable where T: Sendable {}

extension IOResult: Equatable where T: Equatable {}
