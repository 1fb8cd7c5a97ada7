// LoopDoorbell: one process-wide thread that wakes parked hosted loops (EventLoop+Hosted.swift).
//
// A parking slice adds its loop's epoll descriptor to the doorbell's own epoll set with EPOLLONESHOT: an epoll
// descriptor is itself pollable, readable while it has events ready (epoll(7)), and the loop's timerfd sits in
// its set, so one descriptor covers both its I/O and its earliest timer. When it fires, the doorbell queues an
// empty task on the loop, which moves a parked loop to scheduled and asks its host for a slice. The one shot is
// spent then; the next park arms it again, so a running slice never hears from the doorbell more than once per
// park. Loops join at init and leave in deinit; the table holds them weakly, so the doorbell keeps no loop
// alive, and an event for a loop that left finds nothing (closing a loop's epoll descriptor also takes it out
// of the doorbell's set). The thread starts with the first hosted loop and lives as long as the process.

import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

final class LoopDoorbell: Sendable {
    /// The loops that joined, by id.
    private struct Members {
        var loops: [UInt64: WeakLoop] = [:]
        var nextID: UInt64 = 1
    }

    private struct WeakLoop {
        weak var loop: EventLoop?
    }

    /// The process's doorbell, started on first use, or why it could not start.
    private static let shared = Result { () throws(IOError) in try LoopDoorbell() }

    /// Immutable: the set of parked loops' epoll descriptors.
    private let epollFD: Int32
    /// Any thread.
    private let members = LockedBox(Members())

    private init() throws(IOError) {
        epollFD = try Syscall.epollCreate()
        do throws(IOError) {
            _ = try PosixThread.spawn(name: "fw-doorbell", detached: true) { [self] in
                run()
            }
        } catch {
            Syscall.close(epollFD)
            throw error
        }
    }

    // MARK: Membership (any thread)

    /// A new member id (starting the doorbell on first use); the loop enrolls under it once it exists.
    static func join() throws(IOError) -> UInt64 {
        try shared.get().members.withLock { members in
            defer { members.nextID += 1 }
            return members.nextID
        }
    }

    /// Makes `loop` the member `id` rings.
    static func enroll(_ loop: EventLoop, as id: UInt64) {
        guard let doorbell = try? shared.get() else { return }
        doorbell.members.withLock { $0.loops[id] = WeakLoop(loop: loop) }
    }

    /// Forgets member `id`.
    static func leave(_ id: UInt64) {
        guard let doorbell = try? shared.get() else { return }
        doorbell.members.withLock { _ = $0.loops.removeValue(forKey: id) }
    }

    /// Watches `loopEpollFD` for member `id` until it next turns readable (one shot); `added` says whether
    /// it is in the set already and becomes true. False when the kernel refuses (no memory, watch limit).
    static func arm(_ loopEpollFD: Int32, as id: UInt64, added: inout Bool) -> Bool {
        guard let doorbell = try? shared.get() else { return false }
        do {
            try Syscall.epollControl(doorbell.epollFD, op: added ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd: loopEpollFD,
                                     events: FW_EPOLLIN | FW_EPOLLONESHOT, data: id)
        } catch {
            return false
        }
        added = true
        return true
    }

    // MARK: The thread

    private func run() {
        let events = UnsafeMutableBufferPointer<fw_epoll_event>.allocate(capacity: EventLoop.eventBatch)
        while true {
            let count: Int
            do {
                count = try Syscall.epollWait(epollFD, into: events, timeoutMilliseconds: -1)
            } catch {
                preconditionFailure("\(error) in the event loop doorbell")
            }
            for event in events[0..<count] {
                // Outside the lock: the loop may be released here, and its deinit leaves the table.
                let loop = members.withLock { $0.loops[event.data]?.loop }
                loop?.execute {}
            }
        }
    }
}
