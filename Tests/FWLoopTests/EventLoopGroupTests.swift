// EventLoopGroup: round robin, naming, shutdown joining the threads.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import FWLoop
import TestSupport

@Suite struct EventLoopGroupTests {
    /// A thread-name prefix no other test uses (names are cut to 15 bytes).
    private func uniquePrefix() -> String {
        "fwg\(UInt32.random(in: 100_000...999_999))"
    }

    @Test func defaultLoopCountIsTheOnlineCPUCount() {
        #expect(EventLoopGroup.defaultLoopCount == max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #expect(EventLoopGroup.defaultLoopCount >= 1)
    }

    @Test func nextHandsOutLoopsRoundRobin() throws {
        let group = try EventLoopGroup(loopCount: 3, namePrefix: uniquePrefix())
        defer {
            group.shutdown()
        }
        #expect(group.loops.count == 3)
        let picked = (0..<7).map { _ in ObjectIdentifier(group.next()) }
        let expected = [0, 1, 2, 0, 1, 2, 0].map { ObjectIdentifier(group.loops[$0]) }
        #expect(picked == expected)
    }

    @Test func loopCountBelowOneMeansOne() throws {
        let group = try EventLoopGroup(loopCount: 0, namePrefix: uniquePrefix())
        defer {
            group.shutdown()
        }
        #expect(group.loops.count == 1)
        #expect(group.next() === group.next())
    }

    @Test func loopsRunOnNamedThreadsThatShutdownJoins() throws {
        let prefix = uniquePrefix()
        let group = try EventLoopGroup(loopCount: 2, namePrefix: prefix)
        #expect(group.loops.map(\.name) == ["\(prefix)-0", "\(prefix)-1"])
        let finished = LockedBox(0)
        for loop in group.loops {
            // Still running when `shutdown` begins: it waits for that.
            loop.execute {
                _ = waitUntil { refusesTasks(loop) }
                finished.withLock { $0 += 1 }
            }
        }
        #expect(waitUntil { threadNames().filter { $0.hasPrefix(prefix) }.count == 2 })
        group.shutdown()
        // Joined: the accepted tasks are done and the threads are gone the moment shutdown returns.
        #expect(finished.withLock { $0 } == 2)
        #expect(threadNames().filter { $0.hasPrefix(prefix) }.isEmpty)
        group.shutdown()
    }
}
