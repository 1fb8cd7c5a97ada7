import Foundation
import FWLoop
@testable import FWURLSession
import Testing

// The session's two values of changing state, without a loop, a server or a clock: `DeadlineQueue` (what
// `TaskDeadlines` keeps: due in deadline order, only while live, re-arming only for an earlier deadline, the
// heap rebuilt when dead entries pile up) and `SessionRegistry` (identifiers, the task list, and the one-way
// invalidation with what each step asks the session to do).
@Suite struct SessionStateValueTests {
    private typealias Due = TaskDeadlines.Due

    private static func at(_ nanoseconds: UInt64) -> Deadline { Deadline(uptimeNanoseconds: nanoseconds) }

    @Test func deadlinesAreDueInOrderOnlyWhileLiveAndReArmOnlyForAnEarlierOne() {
        var queue = DeadlineQueue()
        let arms = [queue.insert(Due(id: 1, kind: .resource), at: Self.at(300)),
                    queue.insert(Due(id: 2, kind: .resource), at: Self.at(400)), // later: the timer stays
                    queue.insert(Due(id: 3, kind: .begin), at: Self.at(100))]    // earlier: re-arm
        #expect(arms == [true, false, true])
        #expect(queue.armedFor == Self.at(100))
        queue.remove(2)
        let early = queue.popDue(at: Self.at(99)) // never a nanosecond early
        #expect(early.isEmpty)
        let due = queue.popDue(at: Self.at(300))
        #expect(due == [Due(id: 3, kind: .begin), Due(id: 1, kind: .resource)])
        #expect(queue.armedFor == Self.at(400)) // the removed task's entry surfaces later, and is dropped then
        let late = queue.popDue(at: Self.at(1_000))
        #expect(late.isEmpty)
        #expect(queue.armedFor == nil)
        #expect(queue.count == 0)
    }

    @Test func removingMostTasksRebuildsTheHeapAndKeepsTheRestInOrder() {
        var queue = DeadlineQueue()
        for id in 0..<200 { _ = queue.insert(Due(id: id, kind: .resource), at: Self.at(UInt64(1_000 - id))) }
        for id in 0..<200 where id % 10 != 0 { queue.remove(id) }
        #expect(queue.count == 20)
        let due = queue.popDue(at: Self.at(10_000))
        #expect(due.map(\.id) == stride(from: 190, through: 0, by: -10).map { $0 })
    }

    /// A registry over tasks of `session` that the session itself does not know.
    private static func register(_ registry: inout SessionRegistry, _ session: URLSession, fixed: Int? = nil)
        -> URLSessionTask {
        registry.register(fixed: fixed) { identifier in
            URLSessionDataTask(session: session, identifier: identifier,
                               request: URLRequest(url: URL(fileURLWithPath: "/")), sink: DataDelegateSink.shared)
        }
    }

    @Test func identifiersCountUpAndGoPastAReattachedOne() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var registry = SessionRegistry(firstIdentifier: 5, delegate: nil)
        let made = [Self.register(&registry, session), Self.register(&registry, session, fixed: 9),
                    Self.register(&registry, session)]
        #expect(made.map(\.taskIdentifier) == [5, 9, 10])
        #expect(registry.current.map(\.taskIdentifier) == [5, 9, 10])
        let completes = registry.remove(9)
        #expect(!completes) // active: a task leaving completes nothing
        #expect(registry.current.map(\.taskIdentifier) == [5, 10])
    }

    @Test func finishingTasksAndInvalidatingWaitsForTheLastTask() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        final class Delegate: NSObject, URLSessionDelegate {}
        var registry = SessionRegistry(delegate: Delegate())
        let first = Self.register(&registry, session)
        let second = Self.register(&registry, session)
        let (cancel, completeNow) = registry.invalidate(cancelling: false)
        #expect(cancel.isEmpty && !completeNow)
        #expect(registry.invalidation == .invalidating)
        let again = registry.invalidate(cancelling: true) // only the first call counts
        #expect(again.cancel.isEmpty && !again.completeNow)
        #expect(registry.current.count == 2) // still reported
        let completions = [registry.remove(first.taskIdentifier), registry.remove(second.taskIdentifier)]
        #expect(completions == [false, true]) // the last one completes the invalidation
        let told = registry.completeInvalidation()
        #expect(told != nil)
        #expect(registry.invalidation == .invalidated)
        #expect(registry.delegate == nil) // let go of
    }

    @Test func invalidatingAndCancellingCancelsEveryTaskAndStopsReportingThem() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var registry = SessionRegistry(delegate: nil)
        _ = Self.register(&registry, session)
        _ = Self.register(&registry, session)
        let (cancel, completeNow) = registry.invalidate(cancelling: true)
        #expect(cancel.count == 2 && !completeNow)
        #expect(registry.current.isEmpty)
        var empty = SessionRegistry(delegate: nil)
        let completesAtOnce = empty.invalidate(cancelling: false).completeNow
        #expect(completesAtOnce) // nothing to wait for
    }
}
