import FWLoop

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
/// signalled and read after the wait returns, so the semaphore orders the two.
final class BlockedThread<Value: Sendable>: @unchecked Sendable { // the slot is ordered by the semaphore
    private let semaphore = ThreadSemaphore()
    private var result: Result<Value, HTTPClientError>?

    /// Stores `result` and wakes the waiting thread.
    fileprivate func wake(with result: Result<Value, HTTPClientError>) {
        self.result = result
        semaphore.signal()
    }

    /// Blocks until ``wake(with:)``; returns what it was given.
    func wait() throws(HTTPClientError) -> Value {
        semaphore.wait()
        guard let result else { throw .cancelled } // unreachable: wake stores before it signals
        return try result.get()
    }
}
