// LockedBox: exclusive access from many threads, non-copyable values, rethrowing.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import FWLoop

@Suite struct LockedBoxTests {
    private struct Token: ~Copyable {
        var uses = 0
    }

    private struct Boom: Error {}

    @Test func incrementsFromManyThreadsAreNotLost() throws {
        let counter = LockedBox(0)
        let threads = try (0..<4).map { index in
            try PosixThread.spawn(name: "fw-test-box\(index)", detached: false) {
                for _ in 0..<10_000 {
                    counter.withLock { $0 += 1 }
                }
            }
        }
        threads.forEach(PosixThread.join)
        #expect(counter.withLock { $0 } == 40_000)
    }

    @Test func holdsNonCopyableValues() {
        let box = LockedBox(Token())
        let uses = box.withLock { token in
            token.uses += 2
            return token.uses
        }
        #expect(uses == 2)
    }

    @Test func rethrowsAndKeepsEarlierMutations() {
        let box = LockedBox([1])
        #expect(throws: Boom.self) {
            try box.withLock { value in
                value.append(2)
                throw Boom()
            }
        }
        #expect(box.withLock { $0 } == [1, 2])
    }
}
