// EventLoop+Hosted: a loop with no thread of its own, run in bounded slices by its host (STYLE.md principle 9;
// design/small-request-path.md, stage B). A session that makes its own delegate queue runs its connections
// this way, inside that queue's operations, so its callbacks run where its responses were parsed.
//
// States (`Incoming.slice`, under `incoming`'s lock with the tasks):
//   parked     no slice runs or is asked for. The doorbell (LoopDoorbell.swift) watches the epoll descriptor,
//              which turns readable on I/O and on the timerfd armed for the earliest timer. `execute` from
//              any thread, or the doorbell, moves to scheduled and asks the host for a slice.
//   scheduled  the host was asked; `execute` only queues.
//   running    `runSlice` runs iterations on the host's thread, which is the loop's thread until the slice
//              ends (`inEventLoop` and `preconditionInEventLoop` hold exactly inside it). `execute` from another
//              thread signals the eventfd only once the slice decided to block, as on a threaded loop.
//   stopped    shut down: the last slice ran the accepted tasks and dropped the timers and registrations.
// Transitions: parked → scheduled (execute, the doorbell, shutdown); scheduled → running (runSlice);
// running → scheduled (yield) | parked (park) | stopped (shutdown seen); nothing leaves stopped.
//
// A slice's iterations handle I/O before timers (a response that waited in the socket while the host's queue
// ran something else is read before its request's timer can fire); its first iteration does not wait. After
// each iteration the slice
//   - yields when the host asked (`requestYield`: its queue has other work): scheduled, and a new slice is
//     asked for, which the host runs behind that work;
//   - goes on at once while tasks are queued, a timer is due or shutdown was asked;
//   - polls (epoll_wait without waiting, a few microseconds apart) while a channel awaits its peer's answer
//     (`expectAnswer`: a request written, a connection being made) and the busy-poll window since the last
//     work is open (BusyPollWindow.swift: a fast peer's response is caught without a sleep and a wake-up;
//     the window adapts to how fast work comes, and closes for slow peers). A body on its way is not
//     polled for: the slice would spin beside the sender it waits for, for pieces that come anyway;
//   - waits in epoll_wait while something happened within `linger` (a response is likely on its way);
//   - else parks: arms the timerfd for the earliest timer and the doorbell (one shot), then, under the lock,
//     parks unless a task came meanwhile. An event that came meanwhile leaves the epoll descriptor readable,
//     which the doorbell reports at once. If the doorbell cannot be armed, the slice blocks instead.
// Linger is measured on the real monotonic clock, as the timerfd is: a hosted loop always reads that clock.

import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension EventLoop {
    /// Creates a hosted loop: no thread of its own; `host` runs it in slices (`runSlice()`) whenever it has
    /// work, and a slice parks the loop once nothing happened for `linger` (EventLoop+Hosted.swift).
    ///
    /// The loop starts parked. Throws when a descriptor cannot be made or the doorbell thread cannot start.
    /// It reads the real monotonic clock (its parked timers are a timerfd on that clock).
    /// `busyPoll` is the widest busy-poll window (see EventLoop+Hosted.swift's header); `.zero` never polls.
    public convenience init(name: String, hostedBy host: any EventLoopHost,
                            linger: Duration = .milliseconds(1), busyPoll: Duration = .zero) throws(IOError) {
        try self.init(name: name, clock: MonotonicClock(), host: host, linger: linger)
        busyPollWindow = BusyPollWindow(limit: busyPoll, cpus: Self.availableCPUs)
        incoming.withLock { $0.slice = .parked }
        LoopDoorbell.enroll(self, as: doorbellID)
    }

    /// What a slice does after an iteration.
    private enum SliceStep {
        /// Another iteration, after waiting up to this many milliseconds (-1: until something happens).
        case wait(Int32)
        /// Another iteration that does not wait, after a pause of `BusyPollWindow.pollGap`.
        case poll
        case yield
        case parked
    }

    /// Runs the hosted loop on the calling thread until it yields, parks or stops (EventLoop+Hosted.swift's
    /// header). Called by the host after `scheduleSlice(of:)`, from one thread at a time; a call for which no
    /// slice was asked returns at once.
    public func runSlice() {
        guard let host else { preconditionFailure("runSlice() on event loop \(name), which has its own thread") }
        let starts = incoming.withLock { incoming -> Bool in
            guard incoming.slice == .scheduled else { return false }
            incoming.slice = .running
            incoming.wakeupPending = true
            return true
        }
        guard starts else { return }
        threadID.store(pthread_self(), ordering: .releasing)
        var lastWork = Deadline.now()
        var timeout: Int32 = 0
        while true {
            guard let harvested = awaitEvents(into: sliceEvents, timeout: timeout) else {
                return stopSlice()
            }
            if iterate(harvested, inputFirst: true) {
                let now = Deadline.now()
                busyPollWindow.noteWork(afterQuiet: now.uptimeNanoseconds &- lastWork.uptimeNanoseconds)
                lastWork = now
            }
            switch nextStep(lastWork: lastWork) {
            case .wait(let milliseconds): timeout = milliseconds
            case .poll:
                busyPolls &+= 1
                Self.pause(nanoseconds: BusyPollWindow.pollGap)
                timeout = 0
            case .yield: return host.scheduleSlice(of: self)
            case .parked: return
            }
        }
    }

    /// Asks the running or scheduled slice to end after its current iteration and a new slice to be asked of
    /// the host (which runs it behind the work that prompted the call). Any thread; ignored while parked.
    public func requestYield() {
        let signal = incoming.withLock { incoming -> Bool in
            switch incoming.slice {
            case .scheduled:
                incoming.yieldRequested = true
                return false
            case .running:
                incoming.yieldRequested = true
                guard !incoming.wakeupPending else { return false }
                incoming.wakeupPending = true
                return true
            case .threaded, .parked, .stopped:
                return false
            }
        }
        if signal {
            Syscall.eventfdSignal(wakeFD)
        }
    }

    /// `shutdown()` of a hosted loop: the next slice stops it (one is asked for when parked).
    func shutdownHosted() {
        guard shutdownStarted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
            .exchanged
        else {
            return
        }
        let wake = incoming.withLock { incoming -> Wake in
            incoming.isShuttingDown = true
            switch incoming.slice {
            case .parked:
                incoming.slice = .scheduled
                return .slice
            case .running where !incoming.wakeupPending:
                incoming.wakeupPending = true
                return .signal
            case .threaded, .scheduled, .running, .stopped:
                return .none
            }
        }
        switch wake {
        case .none, .dropped: break
        case .signal: Syscall.eventfdSignal(wakeFD)
        case .slice: host?.scheduleSlice(of: self)
        }
    }

    /// Whether this hosted loop is parked: no slice runs or is asked for (tests watch it).
    package var isParked: Bool {
        incoming.withLock { $0.slice == .parked }
    }

    // MARK: Inside a slice

    /// Decides, after an iteration, whether the slice waits, yields or parks (the header's list).
    private func nextStep(lastWork: Deadline) -> SliceStep {
        let timerTimeout = timerTimeout()
        let quiet = Deadline.now().uptimeNanoseconds &- lastWork.uptimeNanoseconds
        let lingerLeft: Int32 = quiet < lingerNanoseconds
            ? Int32(clamping: (lingerNanoseconds - quiet + 999_999) / 1_000_000) : 0
        // Arming costs system calls: outside the lock, and only when the slice is about to park.
        let polls = awaitingAnswers > 0 && busyPollWindow.polls(quiet: quiet)
        let armed = lingerLeft == 0 && timerTimeout != 0 && !polls && armForParking()
        return incoming.withLock { incoming -> SliceStep in
            if incoming.yieldRequested {
                incoming.yieldRequested = false
                incoming.slice = .scheduled
                threadID.store(0, ordering: .releasing)
                return .yield
            }
            guard incoming.tasks.isEmpty, !incoming.isShuttingDown, timerTimeout != 0 else {
                return .wait(0)
            }
            // The eventfd stays marked as pending while polling: the slice will look without being woken.
            if polls { return .poll }
            guard armed else {
                // Lingering (or the doorbell is out of reach): block until an event, a task or the deadline.
                incoming.wakeupPending = false
                let limit = lingerLeft == 0 ? -1 : lingerLeft
                return .wait(timerTimeout < 0 ? limit : limit < 0 ? timerTimeout : min(timerTimeout, limit))
            }
            incoming.slice = .parked
            threadID.store(0, ordering: .releasing)
            return .parked
        }
    }

    /// Spins for about `nanoseconds` without a system call or a lock (the busy-poll window's gap between polls).
    private static func pause(nanoseconds: UInt64) {
        let end = Deadline.now().uptimeNanoseconds &+ nanoseconds
        while Deadline.now().uptimeNanoseconds < end { fw_cpu_relax() }
    }

    /// The CPUs this process may run on, read once.
    package static let availableCPUs = Int(fw_available_cpus())

    /// Arms the timerfd for the earliest timer (disarms it when there is none) and the doorbell; false when
    /// the doorbell cannot watch the loop.
    private func armForParking() -> Bool {
        let deadline = timers.earliestDeadline()
        if deadline != armedTimerDeadline {
            do {
                try Syscall.timerfdSet(timerFD, to: deadline)
            } catch {
                preconditionFailure("\(error) arming the timer of event loop \(name)")
            }
            armedTimerDeadline = deadline
        }
        return LoopDoorbell.arm(epollFD, as: doorbellID, added: &doorbellKnowsEpoll)
    }

    /// Ends the last slice: the accepted tasks run, the timers and registrations go.
    private func stopSlice() {
        finish()
        incoming.withLock { incoming in
            incoming.slice = .stopped
            threadID.store(0, ordering: .releasing)
        }
    }
}
