// TestSupportError: the one error type thrown by the loopback servers and their connections.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - TestSupportError

/// An error from a loopback server or one of its connections.
///
/// Equality compares the kind only (`.timedOut == .timedOut`), never the detail text, so tests can
/// write `#expect(throws: TestSupportError.timedOut)`.
public struct TestSupportError: Error, Equatable, CustomStringConvertible {
    private enum Code: Equatable {
        case timedOut
        case connectionClosed
        case connectionReset
        case malformedRequest
        case systemCall
        case serverUnavailable
    }

    private let code: Code

    /// Human-readable detail for diagnosis; not part of equality and not a stable contract.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    // MARK: Kinds

    /// A read or write did not complete within the connection's timeout.
    public static let timedOut = TestSupportError(.timedOut, "timed out")

    /// Something did not happen in time, with what it was (equal to `timedOut`).
    public static func timedOut(_ detail: String) -> TestSupportError {
        TestSupportError(.timedOut, "timed out: \(detail)")
    }

    /// The peer closed the connection before the expected bytes arrived (or it was already closed here).
    public static let connectionClosed = TestSupportError(.connectionClosed, "connection closed")

    /// The peer reset the connection (ECONNRESET or EPIPE).
    public static let connectionReset = TestSupportError(.connectionReset, "connection reset by peer")

    /// The client sent bytes that are not a well-formed HTTP/1.1 request.
    public static func malformedRequest(_ detail: String) -> TestSupportError {
        TestSupportError(.malformedRequest, "malformed request: \(detail)")
    }

    /// A system call failed with `errno`.
    public static func systemCall(_ name: String, errno code: Int32) -> TestSupportError {
        TestSupportError(.systemCall, "\(name) failed: \(String(cString: strerror(code))) (errno \(code))")
    }

    /// A server could not be started (for example python3 is missing or did not come up).
    public static func serverUnavailable(_ detail: String) -> TestSupportError {
        TestSupportError(.serverUnavailable, "server unavailable: \(detail)")
    }

    // MARK: Equatable, CustomStringConvertible

    /// Compares the kind of two errors, ignoring the detail.
    public static func == (lhs: TestSupportError, rhs: TestSupportError) -> Bool {
        lhs.code == rhs.code
    }

    /// The detail text.
    public var description: String { detail }
}
