import Foundation
@testable import FWURLSession
import FWLoop
import Testing
import TestSupport

// SessionClock: deadlines and dates on one time line (the loops' clock plus the date taken when the session
// was made), saturating conversions, and a session's metrics dated on it: on a manual clock that stands
// still, every time of an exchange (the task's and the transport's) is the same date.
@Suite struct SessionClockTests {
    @Test func datesAndDeadlinesConvertBothWays() throws {
        let loops = try ManualEventLoopGroup()
        defer { loops.shutdown() }
        let clock = SessionClock(loops.group.clock)
        #expect(clock.anchor == ManualEventLoopGroup.start)
        #expect(clock.date() == clock.anchorDate)
        let later = clock.anchor + .milliseconds(1500)
        #expect(clock.date(at: later) == clock.anchorDate.addingTimeInterval(1.5))
        // A `Date` keeps about 0.1 µs near now: a date converts back to within a microsecond, never early.
        let back = clock.deadline(for: clock.anchorDate.addingTimeInterval(1.5))
        #expect(back >= later + .microseconds(-1) && back <= later + .microseconds(1))
        let before = clock.deadline(for: clock.anchorDate.addingTimeInterval(-2))
        #expect(before >= clock.anchor + .seconds(-2) + .microseconds(-1))
        #expect(before <= clock.anchor + .seconds(-2) + .microseconds(1))
        #expect(clock.date(later.uptimeNanoseconds) == clock.date(at: later))
        #expect(clock.date(nil) == nil)
        try loops.advanceTime(by: .seconds(3))
        #expect(clock.date() == clock.anchorDate.addingTimeInterval(3))
    }

    @Test func aDeadlineAfterAnIntervalSaturates() throws {
        let loops = try ManualEventLoopGroup()
        defer { loops.shutdown() }
        let clock = SessionClock(loops.group.clock)
        #expect(clock.deadline(after: 2.5) == clock.anchor + .milliseconds(2500))
        #expect(clock.deadline(after: 0) == clock.anchor)
        #expect(clock.deadline(after: -5) == clock.anchor + .seconds(-5))
        // Rounded up to the nanosecond, never early.
        #expect(clock.deadline(after: 1e-10) == clock.anchor + .nanoseconds(1))
        #expect(clock.deadline(after: -1.5e-9) == clock.anchor + .nanoseconds(-1))
        // Far in the past saturates at the clock's origin.
        for interval in [-1e12, -.infinity] as [TimeInterval] {
            #expect(clock.deadline(after: interval).uptimeNanoseconds == 0)
        }
        // Huge, infinite and NaN intervals (a resource timeout nobody meant to reach) are decades away.
        for interval in [1e12, .infinity, .nan] as [TimeInterval] {
            #expect(clock.deadline(after: interval) >= clock.anchor + .seconds(900_000_000))
        }
    }

    @Test func aSessionOnAStillClockDatesTheWholeExchangeAtOneInstant() throws {
        let server = try LoopbackHTTPServer { _ in .ok("hello") }
        defer { server.stop() }
        let loops = try ManualEventLoopGroup()
        defer { loops.shutdown() }
        let recorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil,
                                 engine: SessionEngine(group: loops.group))
        defer { session.invalidateAndCancel() }
        session.dataTask(with: url(server, "/")).resume()
        #expect(recorder.waitForCompletion())
        let metrics = try #require(recorder.log.withLock { $0.metrics })
        let transaction = try #require(metrics.transactionMetrics.first)
        let instant = session.clock.anchorDate
        #expect(metrics.taskInterval == DateInterval(start: instant, duration: 0))
        let dates = [transaction.fetchStartDate, transaction.connectStartDate, transaction.connectEndDate,
                     transaction.requestStartDate, transaction.requestEndDate, transaction.responseStartDate,
                     transaction.responseEndDate]
        #expect(dates == Array(repeating: instant, count: dates.count))
    }
}
