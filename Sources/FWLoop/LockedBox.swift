// LockedBox: shared mutable state behind a pthread mutex, as a class so it can be captured and shared.
//
// A pthread mutex rather than Synchronization.Mutex: on Linux `Mutex` sits on raw futex calls that
// ThreadSanitizer cannot see, so every access it guards is reported as a race and real races drown.

import Glibc

/// A value behind a mutex, shareable across threads.
///
/// Compute under the lock, act after it: never call out (delegates, continuations, sockets) inside
/// `withLock`. The box is Sendable whatever `Value` is, like `Mutex`; unlike `Mutex` it does not make
/// the compiler prove that `withLock` lets no non-Sendable reference escape: do not return one.
public final class LockedBox<Value: ~Copyable>: @unchecked Sendable { // `value` is only touched with `mutex` held
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Boxes `value`; from now on it is only reachable through `withLock`.
    public init(_ value: consuming Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
