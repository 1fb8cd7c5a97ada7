// LRUStore.swift
//
// The bookkeeping both cache tiers share: values ordered from least to most recently used, each with a
// cost in bytes, and the total. The order is a doubly linked list threaded through the dictionary (each
// node names its older and newer neighbour), so lookup, use, insertion and removal are O(1) and eviction is
// O(evicted). A pure value type: the tiers keep it behind their lock.

import Foundation

/// Values with byte costs, ordered by recency of use, with their total cost.
struct LRUStore<Key: Hashable, Value> {
    // MARK: Storage

    /// One value, its cost and its neighbours in recency order.
    private struct Node {
        var value: Value
        var cost: Int
        var older: Key?
        var newer: Key?
    }

    private var nodes: [Key: Node] = [:]
    /// The least recently used key.
    private var oldest: Key?
    /// The most recently used key.
    private var newest: Key?
    /// The sum of the costs of all values.
    private(set) var totalCost = 0

    /// The keys from the least to the most recently used.
    var keysFromOldest: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(nodes.count)
        var cursor = oldest
        while let key = cursor, let node = nodes[key] {
            keys.append(key)
            cursor = node.newer
        }
        return keys
    }

    // MARK: Access

    /// The value for `key`, leaving the order as it is; nil when there is none.
    func peekValue(for key: Key) -> Value? {
        nodes[key]?.value
    }

    /// The value for `key`, which becomes the most recently used; nil when there is none.
    mutating func value(for key: Key) -> Value? {
        guard let node = nodes[key] else { return nil }
        unlink(key, node)
        append(key, node.value, cost: node.cost)
        return node.value
    }

    /// Stores `value` for `key` as the most recently used, replacing (and returning) any earlier value.
    @discardableResult
    mutating func insert(_ value: Value, cost: Int, for key: Key) -> Value? {
        let replaced = removeValue(for: key)
        append(key, value, cost: cost)
        return replaced
    }

    /// Removes and returns the value for `key`.
    @discardableResult
    mutating func removeValue(for key: Key) -> Value? {
        guard let node = nodes[key] else { return nil }
        unlink(key, node)
        return node.value
    }

    /// Removes the least recently used values until the total cost is at most `capacity`; returns them,
    /// oldest first.
    mutating func evict(toFit capacity: Int) -> [(key: Key, value: Value)] {
        var evicted: [(key: Key, value: Value)] = []
        while totalCost > capacity, let key = oldest, let value = removeValue(for: key) {
            evicted.append((key, value))
        }
        return evicted
    }

    /// Removes every value for which `predicate` holds; returns them, oldest first.
    mutating func removeAll(where predicate: (Value) -> Bool) -> [(key: Key, value: Value)] {
        var removed: [(key: Key, value: Value)] = []
        for key in keysFromOldest {
            if let node = nodes[key], predicate(node.value) {
                unlink(key, node)
                removed.append((key, node.value))
            }
        }
        return removed
    }

    // MARK: List maintenance

    /// Adds `key` as the newest node.
    private mutating func append(_ key: Key, _ value: Value, cost: Int) {
        nodes[key] = Node(value: value, cost: cost, older: newest, newer: nil)
        if let newest {
            nodes[newest]?.newer = key
        } else {
            oldest = key
        }
        newest = key
        totalCost += cost
    }

    /// Takes `key` (whose node is `node`) out of the list and the dictionary.
    private mutating func unlink(_ key: Key, _ node: Node) {
        if let older = node.older {
            nodes[older]?.newer = node.newer
        } else {
            oldest = node.newer
        }
        if let newer = node.newer {
            nodes[newer]?.older = node.older
        } else {
            newest = node.older
        }
        nodes[key] = nil
        totalCost -= node.cost
    }
}
