// Deadline: a point in time on CLOCK_MONOTONIC, the clock epoll timeouts use.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A point in time on the monotonic clock, in nanoseconds since an arbitrary origin (boot).
///
/// Arithmetic saturates: adding a huge duration gives `distantFuture`, going below the origin gives 0.
public struct Deadline: Comparable, Hashable, Sendable {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    public var uptimeNanoseconds: UInt64

    /// A deadline at `uptimeNanoseconds` on the monotonic clock.
    public init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    // MARK: Well-known deadlines

    /// The current time on the real monotonic clock. Code on an event loop reads `EventLoop.now()`,
    /// which follows the loop's clock.
    public static func now() -> Deadline {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Deadline(uptimeNanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    /// A deadline that never comes.
    public static let distantFuture = Deadline(uptimeNanoseconds: .max)

    // MARK: Arithmetic

    /// The deadline `rhs` after `lhs` (before it for a negative duration), saturating.
    public static func + (lhs: Deadline, rhs: Duration) -> Deadline {
        Deadline(uptimeNanoseconds: UInt64(clamping: Int128(lhs.uptimeNanoseconds) + rhs.exactNanoseconds))
    }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: Deadline, rhs: Deadline) -> Duration {
        .nanoseconds(Int128(lhs.uptimeNanoseconds) - Int128(rhs.uptimeNanoseconds))
    }

    /// Orders deadlines by time.
    public static func < (lhs: Deadline, rhs: Deadline) -> Bool {
        lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
    }
}

// MARK: - Duration helpers

extension Duration {
    /// This duration in whole nanoseconds, truncated toward zero (exact: no Duration overflows it).
    ///
    /// One 128-bit division of the attoseconds: going through `components` (seconds and attoseconds, then
    /// multiplied back) took some 280 instructions, and a request adds two durations to deadlines.
    var exactNanoseconds: Int128 {
        attoseconds / 1_000_000_000
    }
}
