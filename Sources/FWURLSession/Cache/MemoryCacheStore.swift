// MemoryCacheStore.swift
//
// The memory tier of `URLCache`: cached responses by key, least recently used first out, within a byte
// capacity. A response's cost is its body plus an estimate of its head (URL and header fields), so the
// tier's usage tracks the memory it really holds. A response that costs more than the whole capacity is not
// kept (and any older response for its key goes). Everything happens under one lock, nothing calls out.

import Foundation
import FWTransport

/// The least-recently-used memory tier of a URL cache.
final class MemoryCacheStore: Sendable {
    // MARK: State

    /// The capacity and the responses.
    private struct State {
        var capacity: Int
        var responses = LRUStore<CacheKey, CachedURLResponse>()
    }

    /// Everything, behind one lock.
    private let state: LockedBox<State>

    /// An empty tier holding at most `capacity` bytes.
    init(capacity: Int) {
        state = LockedBox(State(capacity: max(0, capacity)))
    }

    // MARK: Capacity and usage

    /// The most bytes the tier holds; lowering it evicts the least recently used responses at once.
    var capacity: Int {
        get { state.withLock { $0.capacity } }
        set {
            state.withLock { state in
                state.capacity = max(0, newValue)
                _ = state.responses.evict(toFit: state.capacity)
            }
        }
    }

    /// The bytes the tier holds now.
    var usage: Int {
        state.withLock { $0.responses.totalCost }
    }

    // MARK: Access

    /// The response stored for `key`, which becomes the most recently used.
    func response(for key: CacheKey) -> CachedURLResponse? {
        state.withLock { $0.responses.value(for: key) }
    }

    /// Stores `response` for `key`, evicting the least recently used responses to make room; a response
    /// larger than the capacity is not stored and removes the one stored for `key` before.
    func store(_ response: CachedURLResponse, for key: CacheKey) {
        let cost = Self.cost(of: response, key: key)
        state.withLock { state in
            guard cost <= state.capacity else {
                state.responses.removeValue(for: key)
                return
            }
            state.responses.insert(response, cost: cost, for: key)
            _ = state.responses.evict(toFit: state.capacity)
        }
    }

    /// Removes the response stored for `key`.
    func removeResponse(for key: CacheKey) {
        state.withLock { _ = $0.responses.removeValue(for: key) }
    }

    /// Removes every response stored at or after `date` (all of them for `.distantPast`).
    func removeResponses(storedSince date: Date) {
        state.withLock { state in
            _ = state.responses.removeAll { ($0.cacheInfo?.storedDate ?? .distantFuture) >= date }
        }
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
