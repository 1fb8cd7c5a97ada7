// Syscall chokepoint and IOError: EINTR retry, would-block, thrown errors, descriptions.

import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import FWLoop

@Suite struct SyscallTests {
    /// A fake call that fails with the queued errnos, then returns 7.
    private final class Script {
        var errnos: [Int32]
        var calls = 0

        init(_ errnos: [Int32]) {
            self.errnos = errnos
        }

        func call() -> Int {
            calls += 1
            guard !errnos.isEmpty else {
                return 7
            }
            errno = errnos.removeFirst()
            return -1
        }
    }

    @Test func retriesInterruptedCalls() throws {
        let script = Script([EINTR, EINTR])
        #expect(try Syscall.run("fake", script.call) == .processed(7))
        #expect(script.calls == 3)
    }

    @Test(arguments: [EAGAIN, EWOULDBLOCK])
    func mapsWouldBlock(code: Int32) throws {
        #expect(try Syscall.run("fake", Script([code]).call) == .wouldBlock)
        let error = #expect(throws: IOError.self) {
            try Syscall.runNeverBlocking("fake", Script([code]).call)
        }
        #expect(error?.errno == EAGAIN)
    }

    @Test(arguments: [ECONNRESET, EPIPE, ECONNREFUSED, ENOMEM])
    func throwsOtherErrorsWithTheCallName(code: Int32) {
        let error = #expect(throws: IOError.self) {
            try Syscall.run("fake_call", Script([code]).call)
        }
        #expect(error?.errno == code)
        #expect(error?.call == "fake_call")
    }

    @Test func describesErrorsWithCallTextAndNumber() {
        let error = IOError(errno: ECONNREFUSED, call: "connect")
        #expect(error.description == "connect failed: Connection refused (errno \(ECONNREFUSED))")
        #expect(error.isConnectionRefused)
        #expect(!error.isConnectionReset)
        #expect(IOError(errno: EPIPE, call: "send").isConnectionReset)
    }

    @Test(arguments: [(ENETUNREACH, true), (EHOSTUNREACH, true), (ECONNREFUSED, false), (ETIMEDOUT, false)])
    func noRouteIsNetworkOrHostUnreachable(errno: Int32, isNoRoute: Bool) {
        #expect(IOError(errno: errno, call: "connect").isNoRoute == isNoRoute)
    }

    @Test func eventfdSignalsAndDrains() throws {
        let fd = try Syscall.eventfdCreate()
        defer {
            Syscall.close(fd)
        }
        #expect(!pollReady(fd, Int16(POLLIN), timeout: .zero))
        Syscall.eventfdSignal(fd)
        Syscall.eventfdSignal(fd)
        #expect(pollReady(fd, Int16(POLLIN), timeout: .zero))
        Syscall.eventfdDrain(fd)
        #expect(!pollReady(fd, Int16(POLLIN), timeout: .zero))
        Syscall.eventfdDrain(fd)
    }

    @Test func epollWaitReturnsNaturallyAlignedEvents() throws {
        let epoll = try Syscall.epollCreate()
        let (left, right) = try makeSocketPair()
        defer {
            [epoll, left, right].forEach(Syscall.close)
        }
        try Syscall.epollControl(epoll, op: EPOLL_CTL_ADD, fd: left, events: FW_EPOLLIN, data: 0xDEAD_BEEF_0000_0001)
        try writeAll(right, "x")
        let events = UnsafeMutableBufferPointer<fw_epoll_event>.allocate(capacity: 4)
        defer {
            events.deallocate()
        }
        #expect(try Syscall.epollWait(epoll, into: events, timeoutMilliseconds: 1000) == 1)
        #expect(events[0].data == 0xDEAD_BEEF_0000_0001)
        #expect(events[0].events & FW_EPOLLIN != 0)
    }
}
