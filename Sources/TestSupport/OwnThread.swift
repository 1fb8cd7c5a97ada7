#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - onOwnThread

/// Runs `body` on a thread of its own and hands its result (or its error) back to the calling task.
///
/// For a test that waits on something blocking (a child process and its pipes, a blocking API): done on the
/// test's own task, the wait holds a thread of Swift's cooperative pool, which has as many threads as the
/// machine has cores. Two such waits on a 2-core machine starve every other test's tasks, such as the task
/// that produces a streamed upload, whose server then times out.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let work = OwnThreadWork { continuation.resume(with: Result { try body() }) }
        let context = Unmanaged.passRetained(work).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            Unmanaged<OwnThreadWork>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<OwnThreadWork>.fromOpaque(context).release()
            continuation.resume(throwing: TestSupportError.systemCall("pthread_create", errno: result))
            return
        }
        pthread_detach(thread)
    }
}

/// What the new thread runs; handed over retained through pthread_create's argument.
private final class OwnThreadWork: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}
