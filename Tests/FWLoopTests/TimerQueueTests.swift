// TimerQueue: heap order, FIFO ties, cancellation, a live top, compaction.

import Testing

@testable import FWLoop

@Suite struct TimerQueueTests {
    private func at(_ nanoseconds: UInt64) -> Deadline {
        Deadline(uptimeNanoseconds: nanoseconds)
    }

    @Test func popsDueTimersInDeadlineThenScheduleOrder() {
        var queue = TimerQueue()
        var names: [TimerID: String] = [:]
        for (name, time) in [("c", 30), ("a", 10), ("b1", 20), ("b2", 20), ("d", 40), ("b3", 20)] {
            names[queue.schedule(at: at(UInt64(time))) {}] = name
        }
        #expect(queue.earliestDeadline() == at(10))
        #expect(queue.popExpired(now: at(9)).isEmpty)
        let due = queue.popExpired(now: at(30)).map { names[$0]! }
        #expect(due == ["a", "b1", "b2", "b3", "c"])
        #expect(queue.earliestDeadline() == at(40))
    }

    @Test func cancelledTimersAreSkippedEvenAfterPopping() {
        var queue = TimerQueue()
        var ran: [Int] = []
        let first = queue.schedule(at: at(1)) { ran.append(1) }
        let second = queue.schedule(at: at(2)) { ran.append(2) }
        let third = queue.schedule(at: at(3)) { ran.append(3) }
        queue.cancel(first)
        queue.cancel(first)
        #expect(queue.earliestDeadline() == at(2))
        let due = queue.popExpired(now: at(5))
        #expect(due == [second, third])
        queue.take(second)?()
        queue.cancel(third)
        #expect(queue.take(third) == nil)
        #expect(ran == [2])
        #expect(queue.earliestDeadline() == nil)
    }

    @Test func survivorsOfManyCancellationsStayOrdered() {
        var queue = TimerQueue()
        var keep: [TimerID] = []
        for index in 0..<1000 {
            let id = queue.schedule(at: at(UInt64(1000 - index))) {}
            if index % 100 == 0 {
                keep.append(id)
            } else {
                queue.cancel(id)
            }
        }
        #expect(queue.popExpired(now: .distantFuture) == keep.reversed())
    }

    /// The earliest deadline is always a live timer's: cancelling the top uncovers the next live one, past
    /// entries cancelled while they were below it, and so does popping the due timers.
    @Test func earliestDeadlineSkipsTimersCancelledBelowTheTop() {
        var queue = TimerQueue()
        let first = queue.schedule(at: at(1)) {}
        let second = queue.schedule(at: at(2)) {}
        let third = queue.schedule(at: at(3)) {}
        _ = queue.schedule(at: at(4)) {}
        queue.cancel(second)
        #expect(queue.earliestDeadline() == at(1))
        queue.cancel(first)
        #expect(queue.earliestDeadline() == at(3))
        _ = queue.schedule(at: at(5)) {}
        queue.cancel(third)
        #expect(queue.earliestDeadline() == at(4))
        let sixth = queue.schedule(at: at(6)) {}
        _ = queue.schedule(at: at(7)) {}
        queue.cancel(sixth)
        #expect(queue.popExpired(now: at(5)).count == 2)
        #expect(queue.earliestDeadline() == at(7))
    }

    @Test func removeAllDropsEverything() {
        var queue = TimerQueue()
        _ = queue.schedule(at: at(1)) {}
        queue.removeAll()
        #expect(queue.earliestDeadline() == nil)
        #expect(queue.popExpired(now: .distantFuture).isEmpty)
    }
}
