// AtomicCounter: numbers handed out once each, from any thread, without a lock (the layers above do not import
// Synchronization; ARCHITECTURE.md's layer table, Scripts/check-deps.sh).

import Synchronization

/// A counter whose `next()` returns each number once, counting up from the first, from any thread.
public final class AtomicCounter: Sendable {
    private let value: Atomic<UInt64>

    /// A counter whose first `next()` returns `first`.
    public init(startingAt first: UInt64) {
        value = Atomic(first)
    }

    /// The next number (relaxed: the numbers are unique, and order nothing else).
    public func next() -> UInt64 {
        value.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
