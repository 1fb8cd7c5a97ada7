import FWLoop

// MARK: - onOwnThread

/// Runs `body` on a thread of its own and hands its result (or its error) back to the calling task.
///
/// For a test that waits on something blocking (a child process and its pipes, a blocking API): done on the
/// test's own task, the wait holds a thread of Swift's cooperative pool, which has as many threads as the
/// machine has cores. Two such waits on a 2-core machine starve every other test's tasks, such as the task
/// that produces a streamed upload, whose server then times out.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        do {
            _ = try PosixThread.spawn(name: "test-own-thread", detached: true) {
                continuation.resume(with: Result { try body() })
            }
        } catch {
            continuation.resume(throwing: error)
        }
    }
}
