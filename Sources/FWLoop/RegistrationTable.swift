// RegistrationTable: an EventLoop's registrations by id, found without hashing. Loop thread only.
//
// An id is a slot's index (its low 32 bits) and the slot's generation when the registration was put there (its
// high 32 bits). Removing a registration frees its slot and moves the slot's generation on, so the next
// registration in that slot gets another id: the removed id (and an event the kernel reported for it in the
// current iteration) finds nothing, as it did when ids only ever grew. Generations start at 1 and skip the
// last value, so no id is 0 or UInt64.max, which the loop's eventfd and timerfd use. A lookup is a bounds
// check and a comparison; the `[UInt64: Registration]` it replaces hashed the id (SipHash, about 150
// instructions) on every dispatch, and several times per new connection.

struct RegistrationTable {
    private struct Slot {
        var generation: UInt32
        var registration: EventLoop.Registration?
    }

    private var slots: [Slot] = []
    /// Indices of empty slots, the most recently freed last.
    private var free: [Int] = []

    /// The registration of `id`, nil when it was removed or never existed.
    subscript(id: UInt64) -> EventLoop.Registration? {
        let (index, generation) = Self.split(id)
        guard index < slots.count, slots[index].generation == generation else { return nil }
        return slots[index].registration
    }

    /// Puts `registration` in a free slot and returns its id.
    mutating func insert(_ registration: EventLoop.Registration) -> UInt64 {
        if let index = free.popLast() {
            slots[index].registration = registration
            return Self.id(index: index, generation: slots[index].generation)
        }
        precondition(slots.count < Int(UInt32.max), "more than 2^32 - 1 registrations on one loop")
        slots.append(Slot(generation: 1, registration: registration))
        return Self.id(index: slots.count - 1, generation: 1)
    }

    /// Changes the interest of `id`'s registration; false when there is none.
    mutating func setInterest(_ interest: IOInterest, for id: UInt64) -> Bool {
        let (index, generation) = Self.split(id)
        guard index < slots.count, slots[index].generation == generation, slots[index].registration != nil else {
            return false
        }
        slots[index].registration?.interest = interest
        return true
    }

    /// Removes and returns `id`'s registration, nil when there is none.
    mutating func remove(_ id: UInt64) -> EventLoop.Registration? {
        let (index, generation) = Self.split(id)
        guard index < slots.count, slots[index].generation == generation,
              let registration = slots[index].registration else { return nil }
        slots[index].registration = nil
        slots[index].generation = generation == UInt32.max - 1 ? 1 : generation + 1
        free.append(index)
        return registration
    }

    /// Drops every registration (their handlers are released).
    mutating func removeAll() {
        slots = []
        free = []
    }

    private static func id(index: Int, generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(index)
    }

    private static func split(_ id: UInt64) -> (index: Int, generation: UInt32) {
        (Int(id & 0xFFFF_FFFF), UInt32(truncatingIfNeeded: id >> 32))
    }
}
