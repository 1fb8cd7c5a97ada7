// EventLoop+Registrations: the descriptors a loop watches (STYLE.md principle 9; model: swift-nio
// SelectorEpoll.swift). Each registration gets an id (SlotTable.swift: a slot and its generation, never 0, the
// eventfd's, nor UInt64.max, the timerfd's) that epoll hands back with its events, so an event for a
// registration that is gone (deregistered this iteration, or an old registration of a reused descriptor)
// finds no entry and is dropped. Registrations are level-triggered: a handler is called every iteration while
// its descriptor is ready for what it asked. All of it runs on the loop thread; `registrations` and
// `harvested` are loop-thread-only state of EventLoop.swift.

import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension EventLoop {
    /// One registered descriptor.
    struct Registration {
        let fd: Int32
        var interest: IOInterest
        let handler: any IOHandler
    }

    // MARK: Registrations (loop thread only)

    /// Whether this iteration's epoll_wait reported input for `id` (readable, hang-up or error) that is not
    /// dispatched yet, so its handler has not been told (a threaded loop's timers and tasks run before
    /// dispatch). False once the iteration's events are dispatched, and between iterations.
    public func reportedInput(for id: RegistrationID) -> Bool {
        preconditionInEventLoop()
        let input = FW_EPOLLIN | FW_EPOLLHUP | FW_EPOLLERR
        for event in harvested where event.data == id.rawValue && event.events & input != 0 {
            return true
        }
        return false
    }

    /// Registers `fd` (level-triggered) and starts telling `handler` about `interest`.
    ///
    /// The loop holds `handler` until `deregister`. Deregister before closing the descriptor.
    public func register(fd: Int32, interest: IOInterest, handler: any IOHandler) throws(IOError) -> RegistrationID {
        preconditionInEventLoop()
        let id = registrations.insert(Registration(fd: fd, interest: interest, handler: handler))
        do throws(IOError) {
            try Syscall.epollControl(epollFD, op: EPOLL_CTL_ADD, fd: fd, events: interest.rawValue, data: id)
        } catch {
            _ = registrations.remove(id)
            throw error
        }
        return RegistrationID(rawValue: id)
    }

    /// Changes what a registration is told about. Unknown or deregistered ids are ignored.
    public func setInterest(_ interest: IOInterest, for id: RegistrationID) throws(IOError) {
        preconditionInEventLoop()
        guard let registration = registrations[id.rawValue], registration.interest != interest else {
            return
        }
        try Syscall.epollControl(
            epollFD, op: EPOLL_CTL_MOD, fd: registration.fd, events: interest.rawValue, data: id.rawValue)
        _ = registrations.update(id.rawValue) { $0.interest = interest }
    }

    /// Gives registration `id` to `handler`, now told about `interest`, under a new id: one `EPOLL_CTL_MOD`
    /// where `deregister` and `register` take two (a connect attempt hands its socket to the connection that
    /// uses it). Events already harvested for the old id are dropped, as after `deregister`. When it throws,
    /// the descriptor is registered no more (an unknown id throws `ENOENT`).
    public func transfer(_ id: RegistrationID, to handler: any IOHandler, interest: IOInterest) throws(IOError)
        -> RegistrationID
    {
        preconditionInEventLoop()
        guard let old = registrations.remove(id.rawValue) else {
            throw IOError(errno: ENOENT, call: "epoll_ctl")
        }
        let newID = registrations.insert(Registration(fd: old.fd, interest: interest, handler: handler))
        do throws(IOError) {
            try Syscall.epollControl(epollFD, op: EPOLL_CTL_MOD, fd: old.fd, events: interest.rawValue, data: newID)
        } catch {
            _ = registrations.remove(newID)
            do {
                try Syscall.epollControl(epollFD, op: EPOLL_CTL_DEL, fd: old.fd, events: 0, data: 0)
            } catch {
                // As in `deregister`: the kernel holds no such entry.
            }
            throw error
        }
        return RegistrationID(rawValue: newID)
    }

    /// Removes the registration (before the owner closes the fd). Events already harvested for it in
    /// the current iteration are dropped. Unknown ids are ignored.
    ///
    /// With `closingDescriptor` the owner promises to close the fd right after, before the loop polls again,
    /// and that the fd was never duplicated (`dup`, or inherited by a child: sockets here are made with
    /// `SOCK_CLOEXEC`). Closing the last descriptor of a file takes it out of every epoll set, so the
    /// `EPOLL_CTL_DEL` is left to the kernel: one syscall fewer for each connection that closes.
    public func deregister(_ id: RegistrationID, closingDescriptor: Bool = false) {
        preconditionInEventLoop()
        guard let registration = registrations.remove(id.rawValue) else {
            return
        }
        guard !closingDescriptor else { return }
        do {
            try Syscall.epollControl(epollFD, op: EPOLL_CTL_DEL, fd: registration.fd, events: 0, data: 0)
        } catch {
            // EBADF crashed already; ENOENT, EPERM and EINVAL all mean the kernel holds no such entry.
        }
    }

    // MARK: Dispatch (loop thread)

    /// Hands this iteration's events to their handlers; drains the eventfd and the timerfd; drops events whose
    /// registration is gone.
    func dispatch(_ events: UnsafeMutableBufferPointer<fw_epoll_event>) {
        for event in events {
            if event.data == Self.wakeupID {
                Syscall.eventfdDrain(wakeFD)
                continue
            }
            if event.data == Self.timerID { // a hosted loop's timer woke it: the timers run by the clock
                Syscall.eventfdDrain(timerFD)
                continue
            }
            guard let registration = registrations[event.data] else {
                continue
            }
            let wanted = IOEvents(rawValue: registration.interest.rawValue).union([.hangup, .error])
            let ready = IOEvents(rawValue: event.events).intersection(wanted)
            if !ready.isEmpty {
                registration.handler.handleIO(ready)
            }
        }
    }
}
