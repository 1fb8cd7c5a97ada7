// JoinableThread: a POSIX thread that can be joined, for the servers' accept and connection threads.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - JoinableThread

/// A started pthread running a closure once; `join()` waits for it to end.
final class JoinableThread: Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let handle: pthread_t

    /// Starts a thread running `body`; throws if the system cannot create one.
    init(_ body: @escaping @Sendable () -> Void) throws {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw TestSupportError.systemCall("pthread_create", errno: result)
        }
        self.handle = handle
    }

    /// Waits for the thread to end. Called at most once. Called from the thread itself (a script that
    /// stops its own server) it detaches instead, since a thread cannot wait for itself.
    func join() {
        if pthread_equal(pthread_self(), handle) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }
}
