// LRUStoreTests.swift
//
// LRUStore: recency order (insertion, use, peeking), cost accounting through replacement and removal, and
// eviction of the least recently used values to fit a capacity.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct LRUStoreTests {
    /// A store with "a", "b", "c" inserted in that order, costs 1, 2, 3.
    func abc() -> LRUStore<String, Int> {
        var store = LRUStore<String, Int>()
        for (index, key) in ["a", "b", "c"].enumerated() {
            store.insert(index + 1, cost: index + 1, for: key)
        }
        return store
    }

    @Test func insertionOrderIsRecencyOrder() {
        let store = abc()
        #expect(store.keysFromOldest == ["a", "b", "c"])
        #expect(store.totalCost == 6)
    }

    @Test func usingAValueMakesItTheNewest() {
        var store = abc()
        #expect(store.value(for: "a") == 1)
        #expect(store.keysFromOldest == ["b", "c", "a"])
        #expect(store.value(for: "missing") == nil)
        #expect(store.keysFromOldest == ["b", "c", "a"])
    }

    @Test func peekingLeavesTheOrder() {
        let store = abc()
        #expect(store.peekValue(for: "a") == 1)
        #expect(store.keysFromOldest == ["a", "b", "c"])
    }

    @Test func replacingUpdatesTheCostAndTheOrder() {
        var store = abc()
        #expect(store.insert(10, cost: 10, for: "a") == 1)
        #expect(store.keysFromOldest == ["b", "c", "a"])
        #expect(store.totalCost == 15)
    }

    @Test func removingSubtractsTheCost() {
        var store = abc()
        #expect(store.removeValue(for: "b") == 2)
        #expect(store.removeValue(for: "b") == nil)
        #expect(store.keysFromOldest == ["a", "c"])
        #expect(store.totalCost == 4)
        store.removeValue(for: "a")
        store.removeValue(for: "c")
        #expect(store.keysFromOldest.isEmpty)
        #expect(store.totalCost == 0)
    }

    @Test(arguments: [(6, [String]()), (5, ["a"]), (3, ["a", "b"]), (2, ["a", "b", "c"]), (0, ["a", "b", "c"])])
    func evictionTakesTheLeastRecentlyUsedFirst(capacity: Int, evicted: [String]) {
        var store = abc()
        #expect(store.evict(toFit: capacity).map(\.key) == evicted)
        #expect(store.totalCost <= capacity)
        #expect(store.keysFromOldest == ["a", "b", "c"].filter { !evicted.contains($0) })
    }

    @Test func evictionFollowsUse() {
        var store = abc()
        _ = store.value(for: "a")
        #expect(store.evict(toFit: 1).map(\.key) == ["b", "c"])
    }

    @Test func removeAllWhereKeepsTheRestInOrder() {
        var store = abc()
        store.insert(4, cost: 4, for: "d")
        #expect(store.removeAll { $0 % 2 == 0 }.map(\.key) == ["b", "d"])
        #expect(store.keysFromOldest == ["a", "c"])
        #expect(store.totalCost == 4)
    }
}
