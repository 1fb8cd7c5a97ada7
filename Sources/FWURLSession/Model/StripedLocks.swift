import FWTransport

// MARK: - StripedLocks
//
// A few mutexes shared by many objects that each need a lock rarely, an object taking the one its address
// picks: `HTTPURLResponse` keeps what it derives on first use (its fields as strings, the canonical
// dictionary) under one. A lock of each response's own was an allocation, and a mutex set up and torn down,
// for every response, most of which never derive anything. Two objects may share a mutex, so a body must
// not take another object's lock (none does: each only computes from its own object).

/// Mutexes picked by an object's address.
struct StripedLocks: Sendable {
    private let stripes: [LockedBox<Void>]

    /// `count` mutexes (a power of two).
    init(count: Int) {
        precondition(count > 0 && count & (count - 1) == 0, "stripe count must be a power of two")
        stripes = (0..<count).map { _ in LockedBox(()) }
    }

    /// Runs `body` under the mutex of `object`.
    func withLock<Result>(for object: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        // Objects are 16-byte aligned at least: the bits above the alignment spread them over the stripes.
        let address = UInt(bitPattern: ObjectIdentifier(object))
        return try stripes[Int((address >> 4) & UInt(stripes.count - 1))].withLock { _ in try body() }
    }
}
