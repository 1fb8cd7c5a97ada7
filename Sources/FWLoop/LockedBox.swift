// LockedBox: shared mutable state behind a Mutex, as a class so it can be captured and shared.

import Synchronization

/// A value behind a `Mutex`, shareable across threads.
///
/// Compute under the lock, act after it: never call out (delegates, continuations, sockets) inside
/// `withLock`. The box is Sendable whatever `Value` is, like `Mutex`; unlike `Mutex` it does not make
/// the compiler prove that `withLock` lets no non-Sendable reference escape: do not return one.
public final class LockedBox<Value: ~Copyable>: Sendable {
    /// Lets a value of any type live in the mutex; only ever touched while `mutex` is held.
    private struct Guarded: ~Copyable, @unchecked Sendable {
        var value: Value
    }

    /// Only handed out by `withLock`.
    private struct Handed<R>: @unchecked Sendable {
        let result: R
    }

    /// The value, guarded by itself.
    private let mutex: Mutex<Guarded>

    /// Boxes `value`; from now on it is only reachable through `withLock`.
    public init(_ value: consuming Value) {
        mutex = Mutex(Guarded(value: value))
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try mutex.withLock { guarded in
            Handed(result: try body(&guarded.value))
        }.result
    }
}
