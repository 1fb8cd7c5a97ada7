// MARK: - ConnectionPoolStateMachine: a key's pool, changed in place
//
// Every input changes the pool of one key. Taken out with a copy (`hosts[key]`) and assigned back, the pool's
// lists were still referenced by the dictionary while they changed, so each change copied the list (an
// allocation or two for every lease and every return) and the key (two strings) was hashed twice. An input
// on the request path instead moves the pool out of its slot and back: one hash, no copy.

extension ConnectionPoolStateMachine {
    /// Moves the pool of `key` out of `hosts` into `pool` (an empty one; the empty pool left in the slot holds
    /// no storage) and returns the slot to put it back in with `putBack`. `creating`: a key without a pool
    /// gets one; otherwise it must be a key with a connection the machine knows. Nothing may add or remove
    /// keys of `hosts` before `putBack`.
    mutating func takePool(for key: ConnectionKey, into pool: inout HostPool, creating: Bool = false)
        -> [ConnectionKey: HostPool].Index {
        var slot = hosts.index(forKey: key)
        if slot == nil {
            guard creating else { preconditionFailure("no pool for \(key)") }
            hosts[key] = HostPool()
            slot = hosts.index(forKey: key)
        }
        guard let slot else { preconditionFailure("no pool for \(key) after adding it") }
        swap(&pool, &hosts.values[slot])
        return slot
    }

    /// Puts a pool taken with `takePool` back in its slot, or removes the key when the pool is unused. The pool
    /// is moved in (`consuming`): passed borrowed, it was copied into the slot, a retain of each of its four
    /// lists, released again with the caller's copy.
    mutating func putBack(_ pool: consuming HostPool, at slot: [ConnectionKey: HostPool].Index) {
        if pool.isUnused {
            hosts.remove(at: slot)
        } else {
            hosts.values[slot] = pool
        }
    }

    /// Stores a pool read with a copy (`hosts[key]`), or removes the key when the pool is unused (the inputs
    /// off the request path).
    mutating func store(_ pool: HostPool, for key: ConnectionKey) {
        hosts[key] = pool.isUnused ? nil : pool
    }
}
