// LockedBox: shared mutable state behind a pthread mutex, shareable across threads (it is a reference: copies
// of a box are the same box).
//
// A pthread mutex rather than Synchronization.Mutex: on Linux `Mutex` sits on raw futex calls that
// ThreadSanitizer cannot see, so every access it guards is reported as a race and real races drown.
//
// One allocation per box: the value is the header of a `ManagedBuffer` and the mutex its one tail element,
// so the mutex has a stable address without a second allocation of its own. `withLock` is inlinable, so
// callers get it specialised for their value instead of going through generic code.

import Glibc

/// A value behind a mutex, shareable across threads.
///
/// Compute under the lock, act after it: never call out (delegates, continuations, sockets) inside
/// `withLock`. The box is Sendable whatever `Value` is, like `Mutex`; unlike `Mutex` it does not make
/// the compiler prove that `withLock` lets no non-Sendable reference escape: do not return one.
public struct LockedBox<Value>: @unchecked Sendable { // `storage`'s header is only touched with its mutex held
    /// The value (header) and its mutex (the one element).
    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }

    @usableFromInline
    let storage: Storage

    /// Boxes `value`; from now on it is only reachable through `withLock`. (Inlinable, so that the storage
    /// class's metadata is a cached constant in the caller instead of a generic lookup per box.)
    @inlinable
    public init(_ value: Value) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in value }
        storage = unsafeDowncast(buffer, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed: \(result)")
        }
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
