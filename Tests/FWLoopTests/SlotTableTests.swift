// SlotTable: lookups by id, a freed slot's next id differs from the removed one, and no id is one the loop
// reserves.

import Testing

@testable import FWLoop

@Suite struct SlotTableTests {
    @Test func findsWhatWasInsertedUntilItIsRemoved() {
        var table = SlotTable<String>()
        let first = table.insert("first")
        let second = table.insert("second")
        #expect(first != second && table.count == 2)
        #expect(table[first] == "first" && table[second] == "second")
        let changed = table.update(second) { $0 += "!" }
        #expect(changed && table[second] == "second!")
        let removed = table.remove(first)
        #expect(removed == "first" && table.count == 1)
        let removedAgain = table.remove(first)
        let changedRemoved = table.update(first) { $0 = "zombie" }
        #expect(table[first] == nil && !table.contains(first) && removedAgain == nil && !changedRemoved)
        #expect(table.contains(second))
        table.removeAll()
        #expect(table[second] == nil && table.count == 0)
    }

    /// A freed slot is filled again under another id: a removed id (an event the kernel reported for a
    /// deregistered descriptor, a cancelled timer's heap entry) finds nothing, as an unknown id does.
    @Test func aRefilledSlotGetsANewID() {
        var table = SlotTable<Int>()
        var seen: Set<UInt64> = []
        var id = table.insert(0)
        for round in 1...100 {
            #expect(seen.insert(id).inserted, "round \(round)")
            let removed = table.remove(id)
            #expect(removed == round - 1)
            let next = table.insert(round)
            #expect(table[id] == nil && table[next] == round)
            id = next
        }
        #expect(table[0] == nil && table[.max] == nil && table[1 << 40] == nil)
    }

    @Test func noIDIsOneTheLoopReserves() {
        var table = SlotTable<Int>()
        let ids = (0..<50).map { table.insert($0) }
        #expect(!ids.contains(EventLoop.wakeupID) && !ids.contains(EventLoop.timerID))
        #expect(Set(ids).count == ids.count)
    }
}
