import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - ExchangeWaiter
//
// Whoever waits for the next thing a response exchange gets from the loop thread (the head, a body
// chunk): a task, through its continuation (the async API), or a thread blocked on a semaphore (the
// blocking API, for programs that run no Swift concurrency at all). The exchange keeps at most one waiter
// of each kind, stores it under its lock, and resumes it after the lock is released.

enum ExchangeWaiter<Value: Sendable>: Sendable {
    case task(CheckedContinuation<Value, any Error>)
    case thread(BlockedThread<Value>)

    /// Hands `result` to the waiter (once).
    func resume(with result: Result<Value, HTTPClientError>) {
        switch self {
        case .task(let continuation): continuation.resume(with: result.mapError { $0 })
        case .thread(let thread): thread.wake(with: result)
        }
    }
}

// MARK: - BlockedThread

/// A thread parked until another thread hands it one result: the slot is written before the semaphore is
/// posted and read after the wait returns, so the semaphore orders the two.
final class BlockedThread<Value: Sendable>: @unchecked Sendable { // the slot is ordered by the semaphore
    private let semaphore: UnsafeMutablePointer<sem_t>
    private var result: Result<Value, HTTPClientError>?

    init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Stores `result` and wakes the waiting thread.
    fileprivate func wake(with result: Result<Value, HTTPClientError>) {
        self.result = result
        sem_post(semaphore)
    }

    /// Blocks until ``wake(with:)``; returns what it was given.
    func wait() throws(HTTPClientError) -> Value {
        while sem_wait(semaphore) == -1 {} // EINTR: a signal woke the wait, not the exchange
        guard let result else { throw .cancelled } // unreachable: wake stores before it posts
        return try result.get()
    }
}
