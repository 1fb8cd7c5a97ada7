// PosixThread: named joinable and detached threads.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import FWLoop
import TestSupport

@Suite struct PosixThreadTests {
    @Test func joinableThreadRunsItsBodyUnderItsName() throws {
        let name = LockedBox("")
        let thread = try PosixThread.spawn(name: "fw-test-named-thread-long", detached: false) {
            let text = currentThreadName()
            name.withLock { $0 = text ?? "unreadable" }
        }
        PosixThread.join(thread)
        #expect(name.withLock { $0 } == "fw-test-named-t")
    }

    @Test func detachedThreadRuns() throws {
        let ran = LockedBox(false)
        _ = try PosixThread.spawn(name: "fw-test-detach", detached: true) {
            ran.withLock { $0 = true }
        }
        #expect(waitUntil { ran.withLock { $0 } })
    }
}
