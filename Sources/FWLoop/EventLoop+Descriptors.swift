// EventLoop+Descriptors: the descriptors an event loop opens at init (EventLoop.swift): epoll and the
// wake-up eventfd, registered under the reserved id 0; for a hosted loop also the timerfd for its earliest
// timer while parked, registered under `timerID`, and its entry in the doorbell (LoopDoorbell.swift).

import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension EventLoop {
    /// The descriptors a loop opens: epoll, the eventfd and, when hosted, the timerfd, all registered in
    /// the epoll set, and the doorbell entry; `closeAll` undoes a partial `open`.
    struct Descriptors {
        var epoll: Int32 = -1
        var wake: Int32 = -1
        var timer: Int32 = -1
        var doorbellID: UInt64 = 0

        mutating func open(hosted: Bool) throws(IOError) {
            epoll = try Syscall.epollCreate()
            wake = try Syscall.eventfdCreate()
            try Syscall.epollControl(epoll, op: EPOLL_CTL_ADD, fd: wake, events: FW_EPOLLIN, data: EventLoop.wakeupID)
            guard hosted else { return }
            timer = try Syscall.timerfdCreate()
            try Syscall.epollControl(epoll, op: EPOLL_CTL_ADD, fd: timer, events: FW_EPOLLIN, data: EventLoop.timerID)
            doorbellID = try LoopDoorbell.join()
        }

        func closeAll() {
            for fd in [epoll, wake, timer] where fd >= 0 {
                Syscall.close(fd)
            }
            if doorbellID != 0 { LoopDoorbell.leave(doorbellID) }
        }
    }
}
