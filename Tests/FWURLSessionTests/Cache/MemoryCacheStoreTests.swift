// MemoryCacheStoreTests.swift
//
// MemoryCacheStore: byte accounting, least-recently-used eviction, responses larger than the capacity,
// shrinking the capacity, and removal by storage time.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct MemoryCacheStoreTests {
    func key(_ name: String) -> CacheKey {
        CacheKey(url: URL(string: "https://example.com/\(name)")!)
    }

    func entry(_ name: String, bytes: Int, storedAt offset: TimeInterval = 0) -> CachedURLResponse {
        CacheFixtures.cached(CacheFixtures.response("https://example.com/\(name)"),
                             data: Data(repeating: 0x61, count: bytes), responseOffset: offset)
    }

    func cost(_ name: String, bytes: Int) -> Int {
        MemoryCacheStore.cost(of: entry(name, bytes: bytes), key: key(name))
    }

    @Test func costIsTheBodyPlusTheHead() {
        let response = CacheFixtures.cached(CacheFixtures.response([("ETag", "\"1\"")]), data: Data(count: 100))
        let key = CacheKey(url: URL(string: CacheFixtures.url)!)
        let expected = 100 + 2 * CacheFixtures.url.utf8.count + 64 + ("ETag".utf8.count + 3 + 4)
        #expect(MemoryCacheStore.cost(of: response, key: key) == expected)
    }

    @Test func usageIsTheSumOfTheCosts() {
        let store = MemoryCacheStore(capacity: 1_000_000)
        store.store(entry("a", bytes: 100), for: key("a"))
        store.store(entry("b", bytes: 200), for: key("b"))
        #expect(store.usage == cost("a", bytes: 100) + cost("b", bytes: 200))
        store.store(entry("a", bytes: 50), for: key("a"))
        #expect(store.usage == cost("a", bytes: 50) + cost("b", bytes: 200))
        store.removeResponse(for: key("b"))
        #expect(store.usage == cost("a", bytes: 50))
    }

    @Test func theLeastRecentlyUsedResponseIsEvicted() {
        let store = MemoryCacheStore(capacity: 3 * cost("a", bytes: 100))
        for name in ["a", "b", "c"] {
            store.store(entry(name, bytes: 100), for: key(name))
        }
        #expect(store.response(for: key("a")) != nil)
        store.store(entry("d", bytes: 100), for: key("d"))
        #expect(store.response(for: key("b")) == nil)
        #expect(["a", "c", "d"].allSatisfy { store.response(for: key($0)) != nil })
        #expect(store.usage <= store.capacity)
    }

    @Test func aResponseLargerThanTheCapacityIsNotKeptAndDropsTheOldOne() {
        let store = MemoryCacheStore(capacity: 1000)
        store.store(entry("a", bytes: 10), for: key("a"))
        store.store(entry("a", bytes: 2000), for: key("a"))
        #expect(store.response(for: key("a")) == nil)
        #expect(store.usage == 0)
    }

    @Test func shrinkingTheCapacityEvictsAtOnce() {
        let store = MemoryCacheStore(capacity: 1_000_000)
        for name in ["a", "b", "c"] {
            store.store(entry(name, bytes: 100), for: key(name))
        }
        store.capacity = cost("c", bytes: 100)
        #expect(store.capacity == cost("c", bytes: 100))
        #expect(store.response(for: key("a")) == nil)
        #expect(store.response(for: key("b")) == nil)
        #expect(store.response(for: key("c")) != nil)
        store.capacity = -5
        #expect(store.capacity == 0)
        #expect(store.usage == 0)
    }

    @Test func removalByStorageTimeIncludesTheBoundary() {
        let store = MemoryCacheStore(capacity: 1_000_000)
        store.store(entry("old", bytes: 1, storedAt: -10), for: key("old"))
        store.store(entry("now", bytes: 1, storedAt: 0), for: key("now"))
        store.store(entry("new", bytes: 1, storedAt: 10), for: key("new"))
        store.removeResponses(storedSince: CacheFixtures.epoch)
        #expect(store.response(for: key("old")) != nil)
        #expect(store.response(for: key("now")) == nil)
        #expect(store.response(for: key("new")) == nil)
        store.removeResponses(storedSince: .distantPast)
        #expect(store.usage == 0)
    }
}

/// The memory tier's rules on its state value alone, costs given directly.
@Suite struct MemoryCacheStateTests {
    let response = CacheFixtures.cached(CacheFixtures.response("https://example.com/a"), data: Data())

    func key(_ name: String) -> CacheKey {
        CacheKey(url: URL(string: "https://example.com/\(name)")!)
    }

    @Test func storingEvictsTheLeastRecentlyUsedAndRefusesWhatCannotFit() {
        var state = MemoryCacheState(capacity: 20)
        state.store(response, cost: 10, for: key("a"))
        state.store(response, cost: 10, for: key("b"))
        #expect(state.response(for: key("a")) != nil)
        state.store(response, cost: 5, for: key("c"))
        #expect(state.responses.keysFromOldest == [key("a"), key("c")])
        state.store(response, cost: 21, for: key("a"))
        #expect(state.responses.keysFromOldest == [key("c")])
        #expect(state.responses.totalCost == 5)
    }

    @Test func theCapacityIsNeverNegativeAndLoweringItEvicts() {
        var state = MemoryCacheState(capacity: -1)
        #expect(state.capacity == 0)
        state.setCapacity(100)
        state.store(response, cost: 60, for: key("a"))
        state.store(response, cost: 40, for: key("b"))
        state.setCapacity(50)
        #expect(state.responses.keysFromOldest == [key("b")])
        state.setCapacity(-7)
        #expect(state.capacity == 0)
        #expect(state.responses.totalCost == 0)
    }
}
