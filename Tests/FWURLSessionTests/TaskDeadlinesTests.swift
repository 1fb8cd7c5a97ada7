import Foundation
import FWLoop
@testable import FWURLSession
import Testing
import TestSupport

// TaskDeadlines on a manual clock: a deadline is due exactly when the loop's clock reaches it (never a
// nanosecond early), in deadline order, only while its task is watched; an earlier deadline re-arms the one
// timer; a deadline already passed is due at once; without loops, a begin date is due on the spot; a
// TaskDeadlines that goes away takes its timer with it. `onDue` runs in the loop's timer, so once
// `advanceTime` returns, what was due has been reported.
@Suite struct TaskDeadlinesTests {
    /// Deadlines on a manual loop, recording what is due (and whether on the loop thread).
    final class Harness: Sendable {
        let loops: ManualEventLoopGroup
        let reported = LockedBox<[TaskDeadlines.Due]>([])
        let offLoop = LockedBox(0)
        let deadlines: TaskDeadlines

        init() throws {
            let loops = try ManualEventLoopGroup()
            self.loops = loops
            let loop = loops.loop
            deadlines = TaskDeadlines(loop: loop) { [reported, offLoop] due in
                if !loop.inEventLoop { offLoop.withLock { $0 += 1 } }
                reported.withLock { $0 += due }
            }
        }

        deinit { loops.shutdown() }

        /// `seconds` after the manual clock's start.
        func at(_ seconds: Double) -> Deadline {
            ManualEventLoopGroup.start + .seconds(seconds)
        }

        var due: [TaskDeadlines.Due] {
            reported.withLock { $0 }
        }
    }

    @Test func aDeadlineIsDueWhenTheClockReachesItNeverBefore() throws {
        let harness = try Harness()
        harness.deadlines.add(1, .resource, at: harness.at(2))
        try harness.loops.advanceTime(to: harness.at(2) + .nanoseconds(-1))
        #expect(harness.due.isEmpty)
        try harness.loops.advanceTime(by: .nanoseconds(1))
        #expect(harness.due == [TaskDeadlines.Due(id: 1, kind: .resource)])
        #expect(harness.offLoop.withLock { $0 } == 0)
    }

    @Test func deadlinesAreDueInOrderAndAnEarlierOneReArmsTheTimer() throws {
        let harness = try Harness()
        harness.deadlines.add(1, .resource, at: harness.at(30))
        harness.deadlines.add(2, .begin, at: harness.at(10))
        harness.deadlines.add(3, .resource, at: harness.at(20))
        #expect(try harness.loops.nextTimerDeadline() == harness.at(10))
        try harness.loops.advanceTime(to: harness.at(15))
        #expect(harness.due == [TaskDeadlines.Due(id: 2, kind: .begin)])
        // The timer moved on to the next deadline by itself.
        #expect(try harness.loops.nextTimerDeadline() == harness.at(20))
        try harness.loops.advanceTime(to: harness.at(30))
        #expect(harness.due.map(\.id) == [2, 3, 1])
        #expect(try harness.loops.nextTimerDeadline() == nil)
    }

    @Test func aRemovedTaskIsNeverDueAndItsBothKindsGo() throws {
        let harness = try Harness()
        harness.deadlines.add(1, .begin, at: harness.at(1))
        harness.deadlines.add(1, .resource, at: harness.at(2))
        harness.deadlines.add(2, .resource, at: harness.at(3))
        harness.deadlines.remove(1)
        try harness.loops.advanceTime(to: harness.at(5))
        #expect(harness.due == [TaskDeadlines.Due(id: 2, kind: .resource)])
    }

    @Test func aDeadlineAlreadyPassedIsDueAtOnce() throws {
        let harness = try Harness()
        try harness.loops.advanceTime(to: harness.at(10))
        harness.deadlines.add(7, .begin, at: harness.at(1))
        try harness.loops.advanceTime(by: .zero)
        #expect(harness.due == [TaskDeadlines.Due(id: 7, kind: .begin)])
    }

    @Test func manyRemovedTasksLeaveTheLiveOnesDue() throws {
        let harness = try Harness()
        for id in 1...200 { harness.deadlines.add(id, .resource, at: harness.at(Double(id))) }
        for id in 1...200 where id % 50 != 0 { harness.deadlines.remove(id) }
        try harness.loops.advanceTime(to: harness.at(300))
        #expect(harness.due.map(\.id) == [50, 100, 150, 200])
    }

    @Test func withoutLoopsABeginDateIsDueOnTheSpotAndATimeoutNever() {
        let reported = LockedBox<[TaskDeadlines.Due]>([])
        let deadlines = TaskDeadlines(loop: nil) { due in reported.withLock { $0 += due } }
        deadlines.add(1, .resource, at: .distantFuture)
        deadlines.add(2, .begin, at: .distantFuture)
        #expect(reported.withLock { $0 } == [TaskDeadlines.Due(id: 2, kind: .begin)])
    }

    @Test func deadlinesThatGoAwayTakeTheirTimerWithThem() throws {
        let loops = try ManualEventLoopGroup()
        defer { loops.shutdown() }
        var deadlines: TaskDeadlines? = TaskDeadlines(loop: loops.loop) { _ in }
        deadlines?.add(1, .resource, at: ManualEventLoopGroup.start + .seconds(60))
        #expect(try loops.nextTimerDeadline() == ManualEventLoopGroup.start + .seconds(60))
        deadlines = nil
        #expect(try loops.nextTimerDeadline() == nil)
    }
}
