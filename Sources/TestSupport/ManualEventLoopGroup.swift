// ManualEventLoopGroup: real event loops whose clock only moves when a test says so (STYLE.md principle
// 18; model: swift-nio's EmbeddedEventLoop.advanceTime(by:) and NIOAsyncTestingEventLoop, which run the
// work due by the new time before they return).
//
// How `advanceTime(to: target)` works: it asks every loop for its earliest timer (a task sent with
// `execute`, which also wakes the loop, and answered at the end of that iteration). While the earliest is
// due by `target`, it sets the clock to that deadline and asks again: each loop, woken by the question,
// runs the timers now due first (timers come before tasks in an iteration) and answers after the work
// they queued for the end of the iteration, so the answer is the next deadline still to come. When
// nothing is due by `target`, the clock moves to `target`, the loops are asked once more, and the call
// returns. An answer that is already due (a timer armed meanwhile by a timer, a task or I/O) leads to
// one more round at the same time, so nothing due is left behind.

import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - ManualEventLoopGroup

/// Real event loops (epoll on their own threads: sockets, wake-ups and tasks work as usual) whose time
/// stands still until the test calls `advanceTime(by:)` or `advanceTime(to:)`.
///
/// Contract:
/// - Every loop of `group` reads one manual clock. `now()`, and each loop's `now()`, start at
///   `ManualEventLoopGroup.start` and change only inside `advanceTime`.
/// - `advanceTime(to: target)` returns once every timer due by `target` has run on its loop's thread, and
///   the work it queued with `atEndOfIteration` too (where FWTransport hands its events over). Timers run in
///   deadline order (equal deadlines in schedule order; on different loops, a timer never starts before
///   every earlier one has finished). Time moves in steps, from one due deadline to the next: a timer sees
///   `now()` equal to its own deadline (later only if other work armed an earlier timer meanwhile), and a
///   timer that a timer or a task arms for a time up to `target` runs in the same call. The clock is left
///   at `target`. A target not after `now()` moves nothing but still runs what is already due.
/// - A timer never fires before its deadline. While the clock stands still, a loop whose timers all lie
///   ahead waits for I/O or a wake-up with no timeout.
/// - `advanceTime` sees the timers armed before it was called and those its timers arm. Work still on its
///   way to a loop (an `execute` from another thread, a DNS answer) may arm its timer too late: wait for it
///   first, for example with `waitUntil(timeout: 5) { (try? loops.nextTimerDeadline()) != nil }`.
/// - Call it from a test's thread, never from a loop thread (it waits for the loops), and from one thread at
///   a time. A timer that keeps re-arming itself at or before `target` keeps it from returning.
/// - A loop that does not answer within 10 s (blocked in a task, or shut down) makes `advanceTime` and
///   `nextTimerDeadline` throw `TestSupportError.timedOut`.
public final class ManualEventLoopGroup: Sendable {
    /// Where every manual clock starts: 1,000 s on its own time line (not the machine's uptime), so that
    /// times before the start stay representable.
    public static let start = Deadline(uptimeNanoseconds: 1_000_000_000_000)

    /// How long one loop may take to answer a question of `advanceTime`.
    private static let answerTimeout = Duration.seconds(10)

    /// The loops; hand this to the code under test (`HTTPTransport(configuration:group:)`, or a session's
    /// internal `URLSession(configuration:delegate:delegateQueue:engine: SessionEngine(group:))`); their
    /// clock is `group.clock`.
    public let group: EventLoopGroup
    /// The time of every loop of `group`.
    private let clock: ManualClock
    /// True while an `advanceTime` runs.
    private let advancing = LockedBox(false)

    /// Starts `loopCount` loops (at least 1) named `namePrefix-0`, `namePrefix-1`, ... on a manual clock.
    public init(loopCount: Int = 1, namePrefix: String = "fw-manual") throws(IOError) {
        let clock = ManualClock(start: Self.start)
        self.clock = clock
        group = try EventLoopGroup(loopCount: loopCount, namePrefix: namePrefix, clock: clock)
    }

    /// The first loop (the only one with the default `loopCount` of 1).
    public var loop: EventLoop {
        group.loops[0]
    }

    /// Shuts the loops down (see `EventLoopGroup.shutdown()`).
    public func shutdown() {
        group.shutdown()
    }

    // MARK: Time

    /// The loops' current time.
    public func now() -> Deadline {
        clock.now()
    }

    /// Moves the clock `duration` ahead and runs every timer due by then before returning (see the type's
    /// contract).
    public func advanceTime(by duration: Duration) throws {
        try advanceTime(to: clock.now() + duration)
    }

    /// Moves the clock to `target`, deadline by deadline, and runs every timer due by then before returning
    /// (see the type's contract).
    public func advanceTime(to target: Deadline) throws {
        precondition(!group.loops.contains { $0.inEventLoop }, "advanceTime called on a loop thread")
        let entered = advancing.withLock { busy in
            defer { busy = true }
            return !busy
        }
        precondition(entered, "advanceTime called from two threads at once")
        defer {
            advancing.withLock { $0 = false }
        }
        while true {
            let next = try nextTimerDeadline()
            if let next, next <= target {
                clock.move(to: next)
            } else if clock.now() < target {
                clock.move(to: target)
            } else {
                return
            }
        }
    }

    /// The deadline of the earliest timer scheduled on any of the loops, or nil when none is. Wakes every
    /// loop, which first runs whatever is already due and finishes its iteration.
    public func nextTimerDeadline() throws -> Deadline? {
        let answers = LockedBox((count: 0, earliest: Deadline?.none))
        for loop in group.loops {
            loop.execute {
                loop.atEndOfIteration {
                    let deadline = loop.earliestTimerDeadline()
                    answers.withLock { answers in
                        answers.count += 1
                        answers.earliest = [answers.earliest, deadline].compactMap { $0 }.min()
                    }
                }
            }
        }
        let giveUp = Deadline.now() + Self.answerTimeout
        let expected = group.loops.count
        while true {
            let (count, earliest) = answers.withLock { ($0.count, $0.earliest) }
            if count == expected {
                return earliest
            }
            guard Deadline.now() < giveUp else {
                throw TestSupportError.timedOut("\(expected - count) of \(expected) loops did not answer within "
                    + "\(Self.answerTimeout): blocked in a task, or shut down")
            }
            usleep(50)
        }
    }
}

// MARK: - ManualClock

/// A clock that moves only when told to, and never backwards.
private final class ManualClock: EventLoopClock {
    /// Any thread, under its lock.
    private let time: LockedBox<Deadline>

    init(start: Deadline) {
        time = LockedBox(start)
    }

    func now() -> Deadline {
        time.withLock { $0 }
    }

    /// False: only `move(to:)` moves it, and the caller then wakes the loops.
    var advancesByItself: Bool {
        false
    }

    /// Sets the time to `deadline`, unless it is earlier than the time already shown.
    func move(to deadline: Deadline) {
        time.withLock { $0 = max($0, deadline) }
    }
}
