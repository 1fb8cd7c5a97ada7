// EventLoopGroup: a fixed set of event loops handed out round-robin.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A fixed set of event loops; `next()` hands them out round-robin.
public final class EventLoopGroup: Sendable {
    /// The loops, in creation order.
    public let loops: [EventLoop]
    /// The clock every loop of the group reads (what `EventLoop.now()` answers on each of them).
    public let clock: any EventLoopClock
    /// Counts `next()` calls.
    private let counter = Atomic<UInt>(0)

    /// The number of online CPUs, at least 1.
    public static var defaultLoopCount: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// Starts `loopCount` loops (at least 1) named `namePrefix-0`, `namePrefix-1`, ..., all reading
    /// `clock` (default: the real monotonic clock).
    ///
    /// If one fails to start, those already started are shut down and the error is thrown.
    public init(loopCount: Int = EventLoopGroup.defaultLoopCount, namePrefix: String = "fw-loop",
                clock: any EventLoopClock = MonotonicClock()) throws(IOError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, loopCount) {
            do throws(IOError) {
                loops.append(try EventLoop(name: "\(namePrefix)-\(index)", clock: clock))
            } catch {
                loops.forEach { $0.shutdown() }
                throw error
            }
        }
        self.loops = loops
        self.clock = clock
    }

    /// A group of loops made elsewhere (a session's hosted loop), all reading `clock`.
    public init(loops: [EventLoop], clock: any EventLoopClock = MonotonicClock()) {
        precondition(!loops.isEmpty, "an EventLoopGroup needs a loop")
        self.loops = loops
        self.clock = clock
    }

    /// The next loop, round-robin.
    public func next() -> EventLoop {
        let ticket = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[Int(ticket % UInt(loops.count))]
    }

    /// Shuts every loop down (see `EventLoop.shutdown()`); from a thread that is none of the loops.
    public func shutdown() {
        for loop in loops {
            loop.shutdown()
        }
    }
}
