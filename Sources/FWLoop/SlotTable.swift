// SlotTable: values by id, found without hashing; an EventLoop's registrations and its timers' tasks. Loop thread
// only, like the state it holds.
//
// An id is a slot's index (its low 32 bits) and the slot's generation when the value was put there (its high 32
// bits). Removing a value frees its slot and moves the slot's generation on, so the next value in that slot gets
// another id: the removed id finds nothing (an event the kernel reported for a deregistered descriptor, a
// cancelled timer's entry in the heap), as it did when ids only ever grew. Generations start at 1 and skip the
// last value, so no id is 0 or UInt64.max, which the loop's eventfd and timerfd use. A lookup is a bounds check
// and a comparison; the `[UInt64: Value]` dictionaries this replaced hashed the id (SipHash, about 150
// instructions) on every dispatch, and several times per new connection.

struct SlotTable<Value> {
    private struct Slot {
        var generation: UInt32
        var value: Value?
    }

    private var slots: [Slot] = []
    /// Indices of empty slots, the most recently freed last.
    private var free: [Int] = []
    /// How many values the table holds.
    private(set) var count = 0

    /// The value of `id`, nil when it was removed or never existed.
    subscript(id: UInt64) -> Value? {
        guard let index = index(of: id) else { return nil }
        return slots[index].value
    }

    /// Whether `id` names a value.
    func contains(_ id: UInt64) -> Bool {
        guard let index = index(of: id) else { return false }
        return slots[index].value != nil
    }

    /// Puts `value` in a free slot and returns its id.
    mutating func insert(_ value: Value) -> UInt64 {
        count += 1
        if let index = free.popLast() {
            slots[index].value = value
            return Self.id(index: index, generation: slots[index].generation)
        }
        precondition(slots.count < Int(UInt32.max), "more than 2^32 - 1 values in one slot table")
        slots.append(Slot(generation: 1, value: value))
        return Self.id(index: slots.count - 1, generation: 1)
    }

    /// Changes `id`'s value in place; false when there is none.
    mutating func update(_ id: UInt64, _ change: (inout Value) -> Void) -> Bool {
        guard let index = index(of: id), slots[index].value != nil else { return false }
        change(&slots[index].value!)
        return true
    }

    /// Removes and returns `id`'s value, nil when there is none.
    mutating func remove(_ id: UInt64) -> Value? {
        guard let index = index(of: id), let value = slots[index].value else { return nil }
        slots[index].value = nil
        let generation = slots[index].generation
        slots[index].generation = generation == UInt32.max - 1 ? 1 : generation + 1
        free.append(index)
        count -= 1
        return value
    }

    /// Drops every value.
    mutating func removeAll() {
        slots = []
        free = []
        count = 0
    }

    /// The slot `id` names while its generation is current.
    private func index(of id: UInt64) -> Int? {
        let index = Int(id & 0xFFFF_FFFF)
        guard index < slots.count, slots[index].generation == UInt32(truncatingIfNeeded: id >> 32) else { return nil }
        return index
    }

    private static func id(index: Int, generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(index)
    }
}
