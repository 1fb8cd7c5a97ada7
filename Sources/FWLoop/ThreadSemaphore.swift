// ThreadSemaphore: a POSIX counting semaphore, for a thread that blocks until another thread signals it
// (FWHTTP's blocking API waits on one while the loop thread works). Layers above FWLoop import no libc.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A counting semaphore (`sem_t`): `wait` blocks until the count is above zero, then decrements it;
/// `signal` increments it, waking a waiter.
///
/// `@unchecked Sendable`: the semaphore is thread-safe by itself, and its pointer is immutable.
public final class ThreadSemaphore: @unchecked Sendable { // sem_t is thread-safe; the pointer never changes
    private let semaphore: UnsafeMutablePointer<sem_t>

    /// A semaphore whose count starts at `value`.
    public init(value: UInt32 = 0) {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, value)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Increments the count, waking one waiting thread.
    public func signal() {
        sem_post(semaphore)
    }

    /// Blocks until the count is above zero, then decrements it (a signal that interrupts the wait is
    /// waited through).
    public func wait() {
        while sem_wait(semaphore) == -1 && errno == EINTR {}
    }
}
