// Deadline: monotonic now, saturating arithmetic, ordering.

import Testing

@testable import FWLoop

@Suite struct DeadlineTests {
    @Test func nowIsMonotonic() {
        var previous = Deadline.now()
        for _ in 0..<1000 {
            let next = Deadline.now()
            #expect(next >= previous)
            previous = next
        }
    }

    @Test func addingAndSubtractingDurations() {
        let base = Deadline(uptimeNanoseconds: 5_000_000_000)
        #expect((base + .milliseconds(1)).uptimeNanoseconds == 5_001_000_000)
        #expect((base + .nanoseconds(-1)).uptimeNanoseconds == 4_999_999_999)
        #expect((base + .seconds(-10)).uptimeNanoseconds == 0)
        #expect(base + .seconds(Int64.max) == .distantFuture)
        #expect(Deadline.distantFuture + .seconds(1) == .distantFuture)
        #expect((base + .milliseconds(250)) - base == .milliseconds(250))
        #expect(base - (base + .milliseconds(250)) == .milliseconds(-250))
        #expect(base - base == .zero)
        #expect(Deadline.distantFuture - Deadline(uptimeNanoseconds: 0) == .nanoseconds(UInt64.max))
        #expect(Deadline(uptimeNanoseconds: 0) - .distantFuture == .zero - .nanoseconds(UInt64.max))
    }

    @Test func durationsConvertToWholeNanoseconds() {
        #expect(Duration.seconds(2).exactNanoseconds == 2_000_000_000)
        #expect(Duration.nanoseconds(-3).exactNanoseconds == -3)
        #expect((Duration.seconds(1) / 3).exactNanoseconds == 333_333_333)
        #expect(Duration.seconds(Int64.max).exactNanoseconds == Int128(Int64.max) * 1_000_000_000)
        #expect(Duration.seconds(Int64.min).exactNanoseconds == Int128(Int64.min) * 1_000_000_000)
    }

    @Test func ordersByTime() {
        let early = Deadline(uptimeNanoseconds: 1)
        let late = Deadline(uptimeNanoseconds: 2)
        #expect(early < late)
        #expect(late < .distantFuture)
        #expect([late, .distantFuture, early].sorted() == [early, late, .distantFuture])
        #expect(Deadline.now() < .now() + .seconds(1))
    }
}
