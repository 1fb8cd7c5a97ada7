// MemoryCacheStore.swift
//
// The memory tier of `URLCache`: cached responses by key, least recently used first out, within a byte
// capacity. A response's cost is its body plus an estimate of its head (URL and header fields), so the
// tier's usage tracks the memory it really holds. A response that costs more than the whole capacity is not
// kept (and any older response for its key goes). The rules are `MemoryCacheState`'s, a value the store keeps
// behind one lock and reaches through one door; nothing under it calls out.

import Foundation
import FWTransport

/// The responses of a memory tier and its capacity, as a value: the tier's rules, with no lock.
struct MemoryCacheState {
    /// The most bytes the tier holds (never negative).
    private(set) var capacity: Int
    private(set) var responses = LRUStore<CacheKey, CachedURLResponse>()

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Sets the capacity (a negative one is 0) and evicts the least recently used responses beyond it.
    mutating func setCapacity(_ newValue: Int) {
        capacity = max(0, newValue)
        _ = responses.evict(toFit: capacity)
    }

    /// The response stored for `key`, which becomes the most recently used.
    mutating func response(for key: CacheKey) -> CachedURLResponse? {
        responses.value(for: key)
    }

    /// Removes the response stored for `key`.
    mutating func removeResponse(for key: CacheKey) {
        responses.removeValue(for: key)
    }

    /// Stores `response`, which costs `cost` bytes, for `key`, evicting the least recently used responses to
    /// make room; a response larger than the capacity is not stored and removes the one stored for `key` before.
    mutating func store(_ response: CachedURLResponse, cost: Int, for key: CacheKey) {
        guard cost <= capacity else {
            removeResponse(for: key)
            return
        }
        responses.insert(response, cost: cost, for: key)
        _ = responses.evict(toFit: capacity)
    }

    /// Removes every response stored at or after `date` (all of them for `.distantPast`).
    mutating func removeResponses(storedSince date: Date) {
        _ = responses.removeAll { ($0.cacheInfo?.storedDate ?? .distantFuture) >= date }
    }
}

/// The least-recently-used memory tier of a URL cache: a `MemoryCacheState` behind one lock.
final class MemoryCacheStore: Sendable {
    /// Everything, behind one lock.
    private let state: LockedBox<MemoryCacheState>

    /// An empty tier holding at most `capacity` bytes.
    init(capacity: Int) {
        state = LockedBox(MemoryCacheState(capacity: capacity))
    }

    // MARK: Capacity and usage

    /// The most bytes the tier holds; lowering it evicts the least recently used responses at once.
    var capacity: Int {
        get { access { $0.capacity } }
        set { access { $0.setCapacity(newValue) } }
    }

    /// The bytes the tier holds now.
    var usage: Int {
        access { $0.responses.totalCost }
    }

    // MARK: Access

    /// The response stored for `key`, which becomes the most recently used.
    func response(for key: CacheKey) -> CachedURLResponse? {
        access { $0.response(for: key) }
    }

    /// Stores `response` for `key`, evicting the least recently used responses to make room; a response
    /// larger than the capacity is not stored and removes the one stored for `key` before.
    func store(_ response: CachedURLResponse, for key: CacheKey) {
        let cost = Self.cost(of: response, key: key)
        access { $0.store(response, cost: cost, for: key) }
    }

    /// Removes the response stored for `key`.
    func removeResponse(for key: CacheKey) {
        access { $0.removeResponse(for: key) }
    }

    /// Removes every response stored at or after `date` (all of them for `.distantPast`).
    func removeResponses(storedSince date: Date) {
        access { $0.removeResponses(storedSince: date) }
    }

    /// The door: runs `body` on the state under the lock (nothing in it calls out).
    private func access<Result>(_ body: (inout MemoryCacheState) -> Result) -> Result {
        state.withLock(body)
    }

    // MARK: Cost

    /// The bytes `response` occupies: its body, its key, and its URL and header fields as text.
    static func cost(of response: CachedURLResponse, key: CacheKey) -> Int {
        var cost = response.data.count + key.string.utf8.count + 64
        cost += response.response.url?.absoluteString.utf8.count ?? 0
        for field in (response.response as? HTTPURLResponse)?.orderedHeaderFields ?? [] {
            cost += field.name.utf8.count + field.value.utf8.count + 4
        }
        return cost
    }
}
