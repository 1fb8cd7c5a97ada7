import Foundation
import FWTransport

// MARK: - SessionClock
//
// The one time line of a session: its loops' clock (`SessionEngine.clock`), plus one `Date` taken when the
// session was made, from which every date the session reports derives (a metrics date, a fetch start).
// Deadlines are loop-clock values; a `Date` the caller gives (an earliest begin date) becomes a deadline
// through the same anchor. So the transport's metrics (loop-clock nanoseconds), the task's own times and its
// deadlines agree with each other, and a test that moves a manual clock moves all of them.
//
// The anchor `Date` is read before the clock, so that a deadline derived from a date is never earlier
// than that date on the real clocks (a begin date is never early). Dates drift from the system's wall
// clock when it is set while the session lives; they never go backwards.

/// A session's loop clock with a `Date` anchor: deadlines and dates on one time line.
struct SessionClock: Sendable {
    /// The loops' clock.
    let clock: any EventLoopClock
    /// The wall-clock date at `anchor`.
    let anchorDate: Date
    /// `clock`'s time when the session was made.
    let anchor: Deadline

    /// Anchors `clock` to the current date.
    init(_ clock: any EventLoopClock) {
        anchorDate = Date()
        anchor = clock.now()
        self.clock = clock
    }

    // MARK: Reading

    /// The clock's current time.
    func now() -> Deadline {
        clock.now()
    }

    /// The current date on the session's time line.
    func date() -> Date {
        date(at: now())
    }

    // MARK: Converting

    /// The date of `deadline` on the session's time line.
    func date(at deadline: Deadline) -> Date {
        let nanoseconds = Int64(bitPattern: deadline.uptimeNanoseconds &- anchor.uptimeNanoseconds)
        return anchorDate.addingTimeInterval(Double(nanoseconds) / 1_000_000_000)
    }

    /// The date of a transport metrics time (`uptimeNanoseconds` of the loop clock), nil for nil.
    func date(_ uptimeNanoseconds: UInt64?) -> Date? {
        uptimeNanoseconds.map { date(at: Deadline(uptimeNanoseconds: $0)) }
    }

    /// The deadline of `date` on the session's time line.
    func deadline(for date: Date) -> Deadline {
        Self.moved(anchor, by: date.timeIntervalSince(anchorDate))
    }

    /// The deadline `interval` seconds from now (now for 0 or less, never for a huge or infinite interval).
    func deadline(after interval: TimeInterval) -> Deadline {
        Self.moved(now(), by: interval)
    }

    /// `deadline` moved by `seconds`, rounded up to the nanosecond (never early) and clamped to about 30 years
    /// either way (NaN: 30 years ahead), saturating at the clock's origin. (Nanoseconds, not `Duration`:
    /// FWTransport re-exports `Deadline` without FWLoop's operators. The clamp keeps them within ±1e18, inside
    /// `Int64`: that conversion is one instruction, where `Int128(Double)` took a generic path of hundreds.)
    private static func moved(_ deadline: Deadline, by seconds: TimeInterval) -> Deadline {
        let limit: TimeInterval = 1e9
        let clamped = seconds < limit ? max(seconds, -limit) : limit
        let nanoseconds = Int64((clamped * 1_000_000_000).rounded(.up))
        let origin = deadline.uptimeNanoseconds
        if nanoseconds >= 0 {
            let (sum, overflow) = origin.addingReportingOverflow(UInt64(nanoseconds))
            return Deadline(uptimeNanoseconds: overflow ? .max : sum)
        }
        let earlier = nanoseconds.magnitude
        return Deadline(uptimeNanoseconds: origin > earlier ? origin - earlier : 0)
    }
}
