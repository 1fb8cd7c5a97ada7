// Blocking helpers for tests of loop-driven code (FWLoopTests, FWNetworkMonitorTests): a bounded wait with
// a Duration, and running a closure on a loop and waiting for its result.

import FWLoop

/// `waitUntil(timeout:_:)` (WaitUntil.swift) with the timeout as a Duration, 5 s unless given.
public func waitUntil(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    waitUntil(timeout: timeout / .seconds(1), condition)
}

/// A bounded wait that ran out, naming what it waited for.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String

    public init(what: String) {
        self.what = what
    }

    public var description: String {
        "timed out waiting for \(what)"
    }
}

/// Runs `body` on `loop` and waits (bounded) for its result.
@discardableResult
public func onLoop<T: Sendable>(
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
