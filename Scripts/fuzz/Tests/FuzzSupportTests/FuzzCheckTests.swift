// A violated property traps; a kept one does nothing.

import Testing

@testable import FuzzSupport

@Suite struct FuzzCheckTests {
    @Test func keptPropertyReturns() {
        var reached = false
        fuzzCheck(true, "unused")
        reached = true
        #expect(reached)
    }

    @Test func violatedPropertyTraps() async {
        await #expect(processExitsWith: .failure) {
            fuzzCheck(1 + 1 == 3, "arithmetic")
        }
    }
}
