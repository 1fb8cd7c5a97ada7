// PosixThread: the few pthread calls FWLoop needs (loop threads and resolver workers).

import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

package enum PosixThread {
    /// What the new thread needs; handed over retained through pthread_create's argument.
    private final class Context {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a thread named `name` (the kernel keeps 15 bytes) that runs `body`.
    ///
    /// A `detached` thread cleans up after itself; otherwise the caller must `join` it.
    package static func spawn(
        name: String, detached: Bool, _ body: @escaping @Sendable () -> Void
    ) throws(IOError) -> pthread_t {
        let context = Unmanaged.passRetained(Context(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            _ = fw_pthread_setname(context.name)
            context.body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Context>.fromOpaque(context).release()
            throw IOError(errno: result, call: "pthread_create")
        }
        if detached {
            pthread_detach(thread)
        }
        return thread
    }

    /// Waits for a joinable thread to end.
    static func join(_ thread: pthread_t) {
        let result = pthread_join(thread, nil)
        precondition(result == 0, "pthread_join failed with \(result)")
    }
}
