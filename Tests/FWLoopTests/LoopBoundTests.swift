// LoopBound: carries a non-Sendable value to other threads and back to its loop.

import Testing

@testable import FWLoop
import TestSupport

@Suite struct LoopBoundTests {
    private final class Counter {
        var value = 0
    }

    @Test func valueTravelsAndIsReadOnItsLoop() throws {
        try withLoop { loop in
            let bound = try onLoop(loop) {
                let counter = Counter()
                counter.value = 41
                return LoopBound(counter, loop: loop)
            }
            #expect(bound.loop === loop)
            let seen = try onLoop(loop) {
                bound.value.value += 1
                return bound.value.value
            }
            #expect(seen == 42)
        }
    }
}
