// Blocking helpers for the network-monitor tests: bounded waits and hopping onto the monitor's loop (the
// same as FWLoopTests' TestHelpers.swift, which a test target cannot share).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

import FWLoop

/// Polls `condition` every millisecond until it holds or `timeout` passes; returns the last answer.
func waitUntil(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let deadline = Deadline.now() + timeout
    while !condition() {
        if Deadline.now() > deadline {
            return false
        }
        usleep(1000)
    }
    return true
}

struct TimedOut: Error, CustomStringConvertible {
    let what: String

    var description: String {
        "timed out waiting for \(what)"
    }
}

/// Runs `body` on `loop` and waits (bounded) for its result.
@discardableResult
func onLoop<T: Sendable>(
    _ loop: EventLoop, _ body: @escaping @Sendable () throws -> T
) throws -> T {
    let outcome = LockedBox<Result<T, any Error>?>(nil)
    loop.execute {
        let result = Result { try body() }
        outcome.withLock { $0 = result }
    }
    guard waitUntil({ outcome.withLock { $0 != nil } }) else {
        throw TimedOut(what: "a task on \(loop.name)")
    }
    return try outcome.withLock { $0! }.get()
}
