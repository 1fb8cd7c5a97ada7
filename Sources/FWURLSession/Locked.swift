import Foundation

// MARK: - Locked

/// A value behind an `NSLock` (a pthread mutex, which ThreadSanitizer understands; Synchronization's
/// `Mutex` is built on raw futexes on Linux and shows up as false races).
///
/// Compute under the lock, act after it: never call a delegate or completion handler inside `withLock`.
final class Locked<Value>: @unchecked Sendable { // `value` is only touched with `lock` held
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
