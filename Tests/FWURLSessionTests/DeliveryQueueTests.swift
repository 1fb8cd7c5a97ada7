// DeliveryQueue: event order, holds, one drain at a time, and the body backlog's high and low water (counted
// by capacity), as scripts of inputs and expected answers, without sockets.

import Foundation
import FWTransport
import FWWire
import Testing

@testable import FWURLSession

@Suite struct DeliveryQueueTests {
    /// An event to queue, told apart by its label when it comes out.
    struct Event: Sendable {
        let label: String
        let make: @Sendable () -> TaskEvent

        /// A body whose bytes hold `capacity` bytes of memory (at least: the allocator may round up), of which
        /// `count` are used (default: all); the label is its tag.
        static func body(_ tag: UInt8, capacity: Int, count: Int? = nil) -> Event {
            Event(label: "body \(tag)") {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(capacity)
                bytes.append(contentsOf: repeatElement(tag, count: count ?? capacity))
                return .transport(.body(bytes))
            }
        }

        static func encoded(_ count: Int) -> Event {
            Event(label: "encoded \(count)") { .transport(.encodedBodyBytes(count)) }
        }

        static let end = Event(label: "end") { .transport(.end(trailers: HTTPHeaders())) }
        static let created = Event(label: "created") { .created }
        static let resumedEvent = Event(label: "resumed") { .resumed }
        static let suspendedEvent = Event(label: "suspended") { .suspended }
        static let failure = Event(label: "fail") { .fail(URLError(.timedOut)) }
    }

    /// One input and its expected answer.
    enum Op: Sendable {
        /// `append`, and whether `isBacklogged` changed.
        case append(Event, flips: Bool)
        /// `claimDrain`'s answer.
        case claim(Bool)
        /// `nextForDrain`: the label of the event (nil: none, the drain stops) and whether `isBacklogged`
        /// changed.
        case next(String?, flips: Bool)
        case hold(DeliveryQueue.Hold)
        case release(DeliveryQueue.Hold)
        /// `isBacklogged` now.
        case backlogged(Bool)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let ops: [Op]

        var testDescription: String { name }
    }

    // MARK: Scripts

    private static func append(_ event: Event, flips: Bool = false) -> Op { .append(event, flips: flips) }
    private static func next(_ label: String?, flips: Bool = false) -> Op { .next(label, flips: flips) }

    /// 300 KiB: seven of them pass the 2 MiB high water, one of them is under the 512 KiB low water, and the
    /// allocator's rounding (a few KiB at most) changes neither.
    private static let slab = 300 * 1024

    private static func bodies(_ tags: ClosedRange<UInt8>, flipsAt flip: UInt8? = nil) -> [Op] {
        tags.map { append(.body($0, capacity: slab), flips: $0 == flip) }
    }

    private static func drained(_ tags: ClosedRange<UInt8>, flipsAt flip: UInt8? = nil) -> [Op] {
        tags.map { next("body \($0)", flips: $0 == flip) }
    }

    static let cases: [Case] = [
        Case(name: "nothing to drain", ops: [.claim(false), next(nil), .claim(false)]),
        Case(name: "events come out in the order they went in", ops: [
            append(.encoded(7)), append(.body(1, capacity: 16)), append(.failure), append(.end),
            .claim(true), next("encoded 7"), next("body 1"), next("fail"), next("end"), next(nil),
            .claim(false),
        ]),
        Case(name: "one drain at a time", ops: [
            append(.encoded(1)), .claim(true), append(.encoded(2)), .claim(false),
            next("encoded 1"), next("encoded 2"), next(nil),
            append(.encoded(3)), .claim(true), next("encoded 3"), next(nil),
        ]),
        Case(name: "a hold keeps a drain from starting; releasing it lets one claim", ops: [
            .hold(.suspended), append(.encoded(1)), .claim(false),
            .release(.suspended), .claim(true), next("encoded 1"), next(nil),
        ]),
        Case(name: "a hold stops a drain between two events; the rest waits in order", ops: [
            append(.encoded(1)), append(.encoded(2)), append(.end), .claim(true), next("encoded 1"),
            .hold(.awaitingDisposition), next(nil), append(.failure), .claim(false),
            .release(.awaitingDisposition), .claim(true), next("encoded 2"), next("end"), next("fail"), next(nil),
        ]),
        Case(name: "every hold must go before delivery resumes", ops: [
            .hold(.suspended), .hold(.awaitingRedirectDecision), .hold(.awaitingDisposition), append(.end),
            .claim(false), .release(.suspended), .claim(false), .release(.awaitingDisposition), .claim(false),
            .release(.awaitingRedirectDecision), .claim(true), next("end"), next(nil),
        ]),
        Case(name: "a release without queued events claims nothing", ops: [
            .hold(.suspended), .release(.suspended), .claim(false),
        ]),
        Case(name: "body bytes past high water backlog the task until they fall under low water",
             ops: [.backlogged(false)] + bodies(1...6) + [.backlogged(false)] + bodies(7...8, flipsAt: 7)
                + [.backlogged(true), .claim(true)] + drained(1...6) + [.backlogged(true)]
                + drained(7...8, flipsAt: 7) + [.backlogged(false), next(nil)]),
        Case(name: "a backlog can come back", ops: bodies(1...7, flipsAt: 7) + [.claim(true)]
                + drained(1...7, flipsAt: 6) + [next(nil)] + bodies(1...7, flipsAt: 7) + [.backlogged(true)]),
        Case(name: "bytes count by the memory they hold, not by how many are used", ops: [
            append(.body(1, capacity: 3 * 1024 * 1024, count: 1), flips: true), .backlogged(true),
            .claim(true), next("body 1", flips: true), .backlogged(false),
        ]),
        Case(name: "only body events count", ops: Array(repeating: append(.encoded(4 * 1024 * 1024)), count: 4)
                + [append(.end), append(.failure), .backlogged(false)]),
        Case(name: "state messages go in order, ahead of the load's events and whatever holds those", ops: [
            append(.created), append(.encoded(1)), .hold(.suspended), append(.suspendedEvent), .claim(true),
            next("created"), next("suspended"), next(nil), append(.encoded(2)), append(.resumedEvent),
            .claim(true), next("resumed"), next(nil), .release(.suspended), .claim(true), next("encoded 1"),
            next("encoded 2"), next(nil),
        ]),
        Case(name: "a hold does not change the backlog", ops: [.hold(.suspended)] + bodies(1...7, flipsAt: 7)
                + [.claim(false), next(nil), .backlogged(true)]),
    ]

    // MARK: Running the scripts

    /// What an event looks like in the scripts.
    private static func label(of event: TaskEvent) -> String {
        switch event {
        case .transport(.body(let bytes)): "body \(bytes.first ?? 0)"
        case .transport(.encodedBodyBytes(let count)): "encoded \(count)"
        case .transport(.end): "end"
        case .fail: "fail"
        case .created: "created"
        case .resumed: "resumed"
        case .suspended: "suspended"
        case .transport, .cached, .loaded, .begin, .webSocket, .stream, .trace: "other"
        }
    }

    @Test func slabsAreCountedAtAboutTheirSize() throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.slab)
        #expect(bytes.capacity >= Self.slab && bytes.capacity < Self.slab + 16 * 1024)
    }

    @Test(arguments: cases)
    func script(_ test: Case) {
        var queue = DeliveryQueue()
        for (index, op) in test.ops.enumerated() {
            let position = Comment(rawValue: "op \(index + 1)")
            switch op {
            case .append(let event, let flips):
                #expect(queue.append(event.make()) == flips, position)
            case .claim(let expected):
                #expect(queue.claimDrain() == expected, position)
            case .next(let expected, let flips):
                let (event, changed) = queue.nextForDrain()
                #expect(event.map(Self.label) == expected, position)
                #expect(changed == flips, position)
            case .hold(let hold):
                queue.holds.insert(hold)
            case .release(let hold):
                queue.holds.remove(hold)
            case .backlogged(let expected):
                #expect(queue.isBacklogged == expected, position)
            }
        }
    }

    // Issue 18: a drain that never finds the queue empty (the connection keeps adding while the delegate
    // takes) used to keep every event it had delivered, bodies included, until the queue ran dry: a slow
    // delegate could hold a whole download in memory behind a 2 MiB backlog.
    @Test func deliveredEventsAreNotKeptWhileTheDrainGoesOn() {
        var queue = DeliveryQueue()
        _ = queue.append(.transport(.body([UInt8](repeating: 1, count: 1024))))
        let claimed = queue.claimDrain()
        #expect(claimed)
        for _ in 0..<10_000 {
            _ = queue.append(.transport(.body([UInt8](repeating: 1, count: 1024))))
            _ = queue.nextForDrain()
        }
        #expect(queue.undeliveredCount == 1)
        #expect(queue.keptCount <= 2 * DeliveryQueue.compactionThreshold)
    }
}
