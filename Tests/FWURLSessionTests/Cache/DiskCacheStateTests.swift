// DiskCacheStateTests.swift
//
// DiskCacheState, the disk tier's rules on the value alone (no directory, no file): the directory is worked out
// once, an unopened or unavailable store indexes nothing, and every change returns exactly the files it made
// obsolete (replaced, evicted, removed, damaged).

import Foundation
import Testing
import FWTransport
@testable import FWURLSession

@Suite struct DiskCacheStateTests {
    static let directory = URL(fileURLWithPath: "/nonexistent/cache", isDirectory: true)

    static func record(_ name: String, at seconds: TimeInterval = 0) -> DiskCacheRecord {
        DiskCacheRecord(fileName: name + ".file", storedDate: Date(timeIntervalSince1970: seconds))
    }

    /// An open state with `capacity`, holding nothing.
    static func open(capacity: Int) -> DiskCacheState {
        var state = DiskCacheState(directory: { directory }, capacity: capacity)
        state.opened(LRUStore())
        return state
    }

    @Test func theDirectoryIsWorkedOutOnceWhenFirstAskedFor() {
        let asked = LockedBox(0)
        var state = DiskCacheState(directory: {
            asked.withLock { $0 += 1 }
            return Self.directory
        }, capacity: 10)
        #expect(asked.withLock { $0 } == 0)
        #expect(state.directory() == Self.directory)
        #expect(state.directory() == Self.directory)
        #expect(asked.withLock { $0 } == 1)
    }

    @Test func anUnopenedOrUnavailableStoreIndexesNothing() {
        var unopened = DiskCacheState(directory: { Self.directory }, capacity: 100)
        #expect(unopened.openDirectory() == nil)
        #expect(unopened.insert(Self.record("a"), cost: 10, for: "a") == ["a.file"])
        #expect(unopened.lookUp("a") == nil)
        #expect(unopened.setCapacity(-3) == [])
        #expect(unopened.capacity == 0)
        var unavailable = DiskCacheState(directory: { nil }, capacity: 100)
        unavailable.opened(nil)
        #expect(unavailable.phase == .unavailable)
        #expect(unavailable.insert(Self.record("a"), cost: 10, for: "a") == ["a.file"])
        #expect(unavailable.records.totalCost == 0)
    }

    @Test func insertingReturnsTheReplacedFileAndTheEvictedOnes() {
        var state = Self.open(capacity: 30)
        #expect(state.insert(Self.record("a"), cost: 10, for: "a") == [])
        #expect(state.insert(Self.record("b"), cost: 10, for: "b") == [])
        #expect(state.insert(Self.record("a2"), cost: 10, for: "a") == ["a.file"])
        // "b" is now the least recently used; a look-up makes it the most recent, so "a2" goes first.
        #expect(state.lookUp("b")?.record == Self.record("b"))
        #expect(state.lookUp("b")?.directory == Self.directory)
        #expect(state.insert(Self.record("c"), cost: 15, for: "c") == ["a2.file"])
        #expect(state.records.totalCost == 25)
        #expect(state.setCapacity(15) == ["b.file"])
        #expect(state.records.keysFromOldest == ["c"])
    }

    @Test func removalsReturnTheirFiles() {
        var state = Self.open(capacity: 100)
        _ = state.insert(Self.record("old", at: 10), cost: 1, for: "old")
        _ = state.insert(Self.record("now", at: 20), cost: 1, for: "now")
        _ = state.insert(Self.record("new", at: 30), cost: 1, for: "new")
        #expect(state.remove("missing") == [])
        #expect(state.removeAll(storedSince: Date(timeIntervalSince1970: 20)) == ["now.file", "new.file"])
        #expect(state.remove("old") == ["old.file"])
        #expect(state.records.totalCost == 0)
    }

    @Test func aDamagedFileGoesButANewerEntryForItsKeyStays() {
        var state = Self.open(capacity: 100)
        _ = state.insert(Self.record("a"), cost: 1, for: "a")
        #expect(state.discard(Self.record("a"), for: "a") == ["a.file"])
        #expect(state.lookUp("a") == nil)
        _ = state.insert(Self.record("a2"), cost: 1, for: "a")
        #expect(state.discard(Self.record("a"), for: "a") == ["a.file"])
        #expect(state.lookUp("a")?.record == Self.record("a2"))
    }
}
