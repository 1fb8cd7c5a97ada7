// LockedBox: shared mutable state behind a pthread mutex, shareable across threads (it is a reference: copies
// of a box are the same box).
//
// A pthread mutex rather than Synchronization.Mutex: on Linux `Mutex` sits on raw futex calls that
// ThreadSanitizer cannot see, so every access it guards is reported as a race and real races drown.
//
// One allocation per box: a `ManagedBuffer` whose header is the mutex and whose one tail element is the
// value, so both have stable addresses without a second allocation for the mutex. `init` and `withLock`
// are inlinable, so callers get them specialised for their value (and the storage class's metadata as a
// cached constant) instead of going through generic code.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a mutex, shareable across threads.
///
/// Compute under the lock, act after it: never call out (delegates, continuations, sockets) inside
/// `withLock`. The box is Sendable whatever `Value` is, like `Mutex`; unlike `Mutex` it does not make
/// the compiler prove that `withLock` lets no non-Sendable reference escape: do not return one.
public struct LockedBox<Value: ~Copyable>: @unchecked Sendable { // the element is only touched with the mutex held
    /// The mutex (header) and the value (the one element).
    @usableFromInline
    final class Storage: ManagedBuffer<pthread_mutex_t, Value> {
        deinit {
            withUnsafeMutablePointers { mutex, value in
                pthread_mutex_destroy(mutex)
                value.deinitialize(count: 1)
            }
        }
    }

    @usableFromInline
    let storage: Storage

    /// Boxes `value`; from now on it is only reachable through `withLock`.
    @inlinable
    public init(_ value: consuming Value) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in pthread_mutex_t() }, to: Storage.self)
        // The pointers stay valid while `storage` lives; the value is moved in outside a closure (a closure
        // cannot consume a non-copyable capture).
        let (mutex, element) = storage.withUnsafeMutablePointers { ($0, $1) }
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
        element.initialize(to: value)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { mutex, value in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
