// EventLoopClock: where an event loop reads the time (STYLE.md principle 18, "Time is an input"; model:
// swift-nio's EmbeddedEventLoop, whose `advanceTime(by:)` is the only thing that moves its time).
//
// A loop reads its clock twice per iteration: before epoll_wait, to turn the earliest timer into a
// timeout, and after it, to find the timers that are due. Code running on a loop reads the same clock
// through `EventLoop.now()`, so that a deadline it computes and the loop's idea of "due" agree.
//
// The real clock is `MonotonicClock` (CLOCK_MONOTONIC through `Deadline.now()`: no lock, no allocation).
// A clock that does not advance by itself (TestSupport's manual clock) changes how a loop waits: with
// only future timers it waits for I/O or a wake-up with no timeout, since waiting for the time to pass
// would be waiting forever. Whoever moves such a clock must then wake the loop (`execute` does) so
// that it looks at its timers again.

/// Where an event loop reads the time.
///
/// Conformers must be cheap (the loop reads the clock every iteration) and callable from any thread.
public protocol EventLoopClock: Sendable {
    /// The current time; never earlier than a value returned before.
    func now() -> Deadline

    /// Whether time passes on its own. Fixed for the clock's lifetime.
    ///
    /// When false, a loop never sleeps toward a future timer; whoever moves the clock must wake the loop.
    var advancesByItself: Bool { get }
}

/// The real clock: `CLOCK_MONOTONIC`, the clock of `Deadline.now()` and of epoll's timeouts.
public struct MonotonicClock: EventLoopClock {
    /// The monotonic clock (it has no state: every instance reads the same clock).
    public init() {}

    /// `Deadline.now()`.
    public func now() -> Deadline {
        .now()
    }

    /// Always true: monotonic time passes on its own.
    public var advancesByItself: Bool {
        true
    }
}
