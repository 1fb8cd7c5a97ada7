// IdleStock: things kept for reuse, each until it has sat unused for a while, and whether a sweep timer is armed
// for them. The state behind FWTransport's `BodyPieceRecycler` (read pieces) and the session's `BodyBufferPool`
// (large bodies' buffers): each keeps one under its lock and owns the timer.
//
//   kept ──`keep(_:until:)`──▶ in stock, the oldest first; the first one kept arms the sweep (its deadline
//                              is returned: arm a timer for it)
//   in stock ──`take(at:)` / `takeLast()`──▶ reused (a later `keep` stamps it again)
//   in stock ──`sweep(now:)` at or after its expiry──▶ expired (returned: free it after the lock); the sweep
//                              re-arms for the earliest expiry left, or is disarmed when nothing is left
//   everything ──`removeAll()`──▶ returned (the owner closed)
//
// A value with no clock and no timer of its own: its owner reads the time and arms the timer, so tests drive it
// with plain deadlines.

/// Things kept for reuse until each has been unused past its expiry, with the state of the sweep that frees them.
public struct IdleStock<Item> {
    /// What is kept, in the order it came: the oldest first.
    public private(set) var items: [Item] = []
    /// When each of `items` expires (same order).
    private var expiries: [Deadline] = []
    /// Whether a sweep timer is armed (one at a time).
    private var isSweepArmed = false

    /// An empty stock with no sweep armed.
    public init() {}

    /// How many are kept.
    public var count: Int {
        items.count
    }

    /// Keeps `item` until `expiry`. Returns the deadline to arm the sweep for when none is armed yet (the owner
    /// arms a timer for it and calls `sweep(now:)` when it fires), else nil.
    public mutating func keep(_ item: Item, until expiry: Deadline) -> Deadline? {
        items.append(item)
        expiries.append(expiry)
        guard !isSweepArmed else { return nil }
        isSweepArmed = true
        return expiry
    }

    /// Takes the item at `index` out of the stock.
    public mutating func take(at index: Int) -> Item {
        expiries.remove(at: index)
        return items.remove(at: index)
    }

    /// Takes the most recently kept item out of the stock, if any.
    public mutating func takeLast() -> Item? {
        guard !items.isEmpty else { return nil }
        return take(at: items.count - 1)
    }

    /// The sweep's timer fired: removes and returns what expired by `now`, and the deadline to arm the next sweep
    /// for (the earliest expiry left), or nil when nothing is left (the sweep is then disarmed).
    public mutating func sweep(now: Deadline) -> (expired: [Item], next: Deadline?) {
        var expired: [Item] = []
        var index = 0
        while index < items.count {
            if expiries[index] <= now {
                expired.append(take(at: index))
            } else {
                index += 1
            }
        }
        let next = expiries.min()
        isSweepArmed = next != nil
        return (expired, next)
    }

    /// Removes and returns everything (the sweep, if armed, finds nothing when it fires).
    public mutating func removeAll() -> [Item] {
        expiries = []
        defer { items = [] }
        return items
    }
}

extension IdleStock: Sendable where Item: Sendable {}
