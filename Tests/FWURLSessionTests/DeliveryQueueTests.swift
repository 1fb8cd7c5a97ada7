import Foundation
import FWTransport
@testable import FWURLSession
import Testing

// A task's undelivered events: the backlog that pauses reading, and what the queue keeps of events it
// delivered already.
@Suite struct DeliveryQueueTests {
    static func body(_ size: Int) -> TaskEvent {
        .transport(.body([UInt8](repeating: 1, count: size)))
    }

    // Body bytes are counted by the memory they hold (their arrays' capacity).
    @Test func theBacklogPausesAboveTheHighWaterAndResumesUnderTheLowWater() {
        let events = (0..<40).map { _ in Self.body(64 * 1024) }
        guard case .transport(.body(let bytes)) = events[0] else { return }
        let size = bytes.capacity
        var queue = DeliveryQueue()
        let changes = events.indices.filter { queue.append(events[$0]) }
        #expect(changes == [DeliveryQueue.highWater / size])
        #expect(queue.isBacklogged)
        let claimed = queue.claimDrain()
        #expect(claimed)
        var delivered = 0
        while case (_?, let changed) = queue.nextForDrain() {
            delivered += 1
            if changed { break }
        }
        #expect(!queue.isBacklogged)
        #expect((40 - delivered) * size < DeliveryQueue.lowWater)
        #expect((41 - delivered) * size >= DeliveryQueue.lowWater)
    }

    // Issue 18: a drain that never finds the queue empty (the connection keeps adding while the delegate
    // takes) used to keep every event it had delivered, bodies included, until the queue ran dry: a slow
    // delegate could hold a whole download in memory behind a 2 MiB backlog.
    @Test func deliveredEventsAreNotKeptWhileTheDrainGoesOn() {
        var queue = DeliveryQueue()
        _ = queue.append(Self.body(1024))
        let claimed = queue.claimDrain()
        #expect(claimed)
        for _ in 0..<10_000 {
            _ = queue.append(Self.body(1024))
            _ = queue.nextForDrain()
        }
        #expect(queue.undeliveredCount == 1)
        #expect(queue.keptCount <= 2 * DeliveryQueue.compactionThreshold)
    }
}
