// RegistrationTable: lookups by id, a freed slot's next id differs from the removed one, and no id is one of
// the loop's reserved ones.

import Testing

@testable import FWLoop

@Suite struct RegistrationTableTests {
    private func registration(fd: Int32) -> EventLoop.Registration {
        EventLoop.Registration(fd: fd, interest: .readable, handler: RecordingHandler())
    }

    @Test func findsWhatWasInsertedUntilItIsRemoved() {
        var table = RegistrationTable()
        let first = table.insert(registration(fd: 10))
        let second = table.insert(registration(fd: 11))
        #expect(first != second)
        #expect(table[first]?.fd == 10 && table[second]?.fd == 11)
        let changed = table.setInterest(.writable, for: second)
        #expect(changed && table[second]?.interest == .writable)
        let removed = table.remove(first)
        #expect(removed?.fd == 10)
        let removedAgain = table.remove(first)
        let changedRemoved = table.setInterest(.writable, for: first)
        #expect(table[first] == nil && removedAgain == nil && !changedRemoved)
        #expect(table[second]?.fd == 11)
        table.removeAll()
        #expect(table[second] == nil)
    }

    /// A freed slot is filled again under another id: an event the kernel reported for the removed id finds
    /// nothing, as an unknown id does.
    @Test func aRefilledSlotGetsANewID() {
        var table = RegistrationTable()
        var seen: Set<UInt64> = []
        var id = table.insert(registration(fd: 3))
        for round in 0..<100 {
            #expect(seen.insert(id).inserted, "round \(round)")
            let removed = table.remove(id)
            #expect(removed != nil)
            let next = table.insert(registration(fd: 3))
            #expect(table[id] == nil && table[next]?.fd == 3)
            id = next
        }
        #expect(table[0] == nil && table[.max] == nil && table[1 << 40] == nil)
    }

    @Test func noIDIsOneTheLoopReserves() {
        var table = RegistrationTable()
        let ids = (0..<50).map { table.insert(registration(fd: Int32($0))) }
        #expect(!ids.contains(EventLoop.wakeupID) && !ids.contains(EventLoop.timerID))
        #expect(Set(ids).count == ids.count)
    }
}
