// EventLoop: one thread running epoll (STYLE.md principles 9 and 10; model: swift-nio
// SelectableEventLoop.swift and SelectorEpoll.swift).
//
// Lifecycle: `init` creates the epoll instance and an eventfd, registers the eventfd under the
// reserved registration id 0 and starts the thread. Each iteration of the thread:
//   1. waits in epoll_wait; the timeout is 0 while tasks are queued or a timer is due, else the time
//      to the earliest timer rounded UP to whole milliseconds (a timer never fires early), else (no
//      timer, or a clock that does not advance by itself) infinite;
//   2. stops if `shutdown` was called;
//   3. runs the timers that are due by its clock, in deadline order;
//   4. runs the tasks queued so far, FIFO (tasks queued meanwhile wait for the next iteration, which
//      then does not block);
//   5. dispatches the harvested IO events to their handlers, dropping events whose registration is
//      gone (deregistered this iteration, or an old registration of a reused descriptor).
// `shutdown` (another thread) marks the loop shutting down and wakes it; the thread runs the tasks
// accepted before that, drops timers and registrations (releasing handlers on the loop thread) and
// exits; `shutdown` joins it and closes the epoll fd; `deinit` closes the eventfd.
//
// Wake-ups (swift-nio's `_pendingTaskPop` rule): `wakeupPending`, under `incoming`'s lock with the tasks,
// is true from epoll_wait's return until the loop, finding no task, decides to block. `execute` from
// another thread signals only if it was false (setting it), and writes the eventfd after the lock: an awake
// loop is never signalled, a woken one never waits for its waker's lock. One lock for the tasks and the
// flag loses no wake-up. The eventfd stays open until `deinit` (a signal may follow `shutdown`).
// `reportedInput(for:)` answers from the events this iteration harvested: its tasks run before dispatch.
//
// Registrations are level-triggered: a handler is called every iteration while its descriptor is
// ready for what it asked (EventLoop+Registrations.swift).
//
// Time comes from the `EventLoopClock` given at init (see EventLoopClock.swift): the real monotonic
// clock by default, a clock moved by hand in tests.
//
// A hosted loop (`init(name:hostedBy:linger:)`) has no thread: its host runs it in slices, with the
// same iteration but I/O first (EventLoop+Hosted.swift has its states).


import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// An event loop: one named thread running epoll, with cross-thread tasks, timers and IO handlers.
///
/// `@unchecked Sendable`: each stored property below says what guards it; the loop-thread-only ones
/// are checked by `preconditionInEventLoop()` at every entry point. The properties without `private` are
/// those EventLoop+Registrations.swift and EventLoop+Hosted.swift use too.
public final class EventLoop: @unchecked Sendable { // each stored property says its guard
    // MARK: State

    /// Cross-thread work, guarded by `incoming`.
    struct Incoming {
        var tasks: [@Sendable () -> Void] = []
        /// The loop is awake (from epoll_wait's return until it decides to block with no task queued), or
        /// the eventfd was signalled since that decision: `execute` need not signal it.
        var wakeupPending = true
        var isShuttingDown = false
        /// Who runs the loop now (EventLoop+Hosted.swift); always `.threaded` on a loop with a thread.
        var slice = SliceState.threaded
        /// A hosted loop's host asked the running or scheduled slice to end after its iteration.
        var yieldRequested = false
    }

    /// Who runs a loop's iterations (a hosted loop's states are explained in EventLoop+Hosted.swift).
    enum SliceState {
        case threaded, parked, scheduled, running, stopped
    }

    /// The registration id of the eventfd; real registrations count from 1.
    static let wakeupID: UInt64 = 0
    /// The registration id of a hosted loop's timerfd.
    static let timerID: UInt64 = .max
    /// The most events harvested per epoll_wait (the C shim's batch size).
    static let eventBatch = 64

    /// The name given at init, also the thread's name. Immutable.
    public let name: String
    /// Immutable; read from any thread.
    private let clock: any EventLoopClock
    /// Immutable: the clock is `MonotonicClock`, which `now()` reads directly, so that the real path costs
    /// about what `Deadline.now()` costs (callgrind: a call through the existential added ~40 instructions
    /// to an iteration, this branch ~14).
    private let clockIsMonotonic: Bool
    /// Immutable: `advancesByItself` of the clock, read once.
    private let clockAdvancesByItself: Bool
    /// Immutable; closed by `shutdown` after the thread ended.
    let epollFD: Int32
    /// Immutable; written by any thread (`execute`, `shutdown`), read on the loop thread; closed in `deinit`,
    /// so that a signal decided before `shutdown` and written after it never reaches a closed or reused fd.
    let wakeFD: Int32
    /// Any thread: the loop thread's pthread_t while it runs, 0 before and after.
    let threadID = Atomic<UInt>(0)
    /// Any thread: set by the first `shutdown`.
    let shutdownStarted = Atomic<Bool>(false)
    /// Any thread: tasks from `execute` and the shutdown flag.
    let incoming = LockedBox(Incoming())
    /// Written once in `init` (the loop thread never reads it); read by `shutdown`.
    private var thread = pthread_t()

    /// Immutable: what runs a hosted loop's slices; nil on a loop with its own thread.
    let host: (any EventLoopHost)?
    /// Immutable: a hosted loop's timerfd (armed for its earliest timer while it is parked), else -1.
    let timerFD: Int32
    /// Immutable: how long a hosted slice goes on waiting after the last thing it handled, in nanoseconds.
    let lingerNanoseconds: UInt64
    /// Immutable: a hosted loop's entry in the doorbell, else 0.
    let doorbellID: UInt64
    /// Loop thread only (hosted): the events buffer the slices share.
    let sliceEvents: UnsafeMutableBufferPointer<fw_epoll_event>
    /// Loop thread only (hosted): the deadline the timerfd is armed for, if any.
    var armedTimerDeadline: Deadline?
    /// Loop thread only (hosted): the epoll descriptor is in the doorbell's set (armed once, re-armed after).
    var doorbellKnowsEpoll = false

    /// Loop thread only.
    var registrations: [UInt64: Registration] = [:]
    /// Loop thread only.
    var nextRegistrationID: UInt64 = 1
    /// Loop thread only.
    var timers = TimerQueue()
    /// Loop thread only: the events this iteration's epoll_wait harvested (a view of `run`'s buffer), empty
    /// between iterations.
    var harvested = UnsafeMutableBufferPointer<fw_epoll_event>(start: nil, count: 0)
    /// Loop thread only: work for the end of the current iteration (`atEndOfIteration`).
    private var endOfIteration: [() -> Void] = []
    /// Loop thread only: emptied lists kept with their capacity, swapped in when `endOfIteration` and
    /// `incoming.tasks` are taken, so that a busy loop does not allocate a new list every iteration.
    private var spareEndOfIteration: [() -> Void] = []
    private var spareTasks: [@Sendable () -> Void] = []
    /// A spare list that held more than this many items is let go (a burst does not pin its memory).
    private static let keptListCapacity = 256

    // MARK: Life cycle

    /// Creates the epoll instance and the wake-up eventfd and starts the loop thread named `name`,
    /// whose timers follow `clock` (default: the real monotonic clock).
    public convenience init(name: String, clock: any EventLoopClock = MonotonicClock()) throws(IOError) {
        try self.init(name: name, clock: clock, host: nil, linger: .zero)
        do throws(IOError) {
            thread = try PosixThread.spawn(name: name, detached: false) { [self] in
                run()
            }
        } catch {
            // Every stored property is set: `deinit` runs and closes the descriptors.
            Syscall.close(epollFD)
            throw error
        }
    }

    /// Creates a hosted loop: no thread of its own; `host` runs it in slices (`runSlice()`) whenever it has
    /// work, and a slice parks the loop once nothing happened for `linger` (EventLoop+Hosted.swift).
    ///
    /// The loop starts parked. Throws when a descriptor cannot be made or the doorbell thread cannot start.
    /// It reads the real monotonic clock (its parked timers are a timerfd on that clock).
    public convenience init(name: String, hostedBy host: any EventLoopHost,
                            linger: Duration = .milliseconds(1)) throws(IOError) {
        try self.init(name: name, clock: MonotonicClock(), host: host, linger: linger)
        incoming.withLock { $0.slice = .parked }
        LoopDoorbell.enroll(self, as: doorbellID)
    }

    /// The descriptors and the state both kinds share; a hosted loop's timerfd and doorbell entry too.
    private init(name: String, clock: any EventLoopClock, host: (any EventLoopHost)?,
                 linger: Duration) throws(IOError) {
        self.name = name
        self.clock = clock
        self.host = host
        clockIsMonotonic = clock is MonotonicClock
        clockAdvancesByItself = clock.advancesByItself
        let (seconds, attoseconds) = linger.components
        lingerNanoseconds = UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(clamping: attoseconds / 1_000_000_000)
        var descriptors = Descriptors()
        do throws(IOError) {
            try descriptors.open(hosted: host != nil)
        } catch {
            descriptors.closeAll()
            throw error
        }
        epollFD = descriptors.epoll
        wakeFD = descriptors.wake
        timerFD = descriptors.timer
        doorbellID = descriptors.doorbellID
        sliceEvents = host == nil ? UnsafeMutableBufferPointer(start: nil, count: 0)
            : .allocate(capacity: Self.eventBatch)
    }

    deinit {
        Syscall.close(wakeFD)
        if host != nil {
            // A hosted loop's epoll descriptor lives as long as the loop (nothing joins a hosted loop).
            LoopDoorbell.leave(doorbellID)
            Syscall.close(epollFD)
            Syscall.close(timerFD)
            sliceEvents.deallocate()
        }
    }

    /// The descriptors a loop opens: epoll, the eventfd and, when hosted, the timerfd, all registered in
    /// the epoll set, and the doorbell entry; `closeAll` undoes a partial `open`.
    private struct Descriptors {
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

    /// Stops the loop from another thread and waits for its thread to end, then closes the epoll
    /// instance (the eventfd goes with the loop). Tasks accepted before the call still run; timers and IO
    /// do not.
    /// Later calls return at once.
    ///
    /// A hosted loop is stopped by its next slice (the next iteration of the running one, or one asked of the
    /// host now when parked); the call does not wait for it, and may come from inside a slice.
    public func shutdown() {
        if host != nil { return shutdownHosted() }
        precondition(!inEventLoop, "EventLoop.shutdown() called on the loop thread of \(name)")
        guard shutdownStarted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
            .exchanged
        else {
            return
        }
        incoming.withLock { $0.isShuttingDown = true }
        Syscall.eventfdSignal(wakeFD)
        PosixThread.join(thread)
        Syscall.close(epollFD)
    }

    // MARK: Threads

    /// True on the loop's own thread.
    public var inEventLoop: Bool {
        threadID.load(ordering: .relaxed) == pthread_self()
    }

    /// Crashes unless called on the loop thread.
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "not on the thread of event loop \(name)", file: file, line: line)
    }

    /// Any thread. Runs `task` on the loop thread, FIFO with other tasks. After shutdown: dropped.
    ///
    /// On a parked hosted loop, asks the host for a slice instead of signalling.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let onLoop = inEventLoop
        let wake = incoming.withLock { incoming -> Wake in
            guard !incoming.isShuttingDown else {
                return .none
            }
            incoming.tasks.append(task)
            if incoming.slice == .parked {
                incoming.slice = .scheduled
                return .slice
            }
            // No signal when the loop is awake (it sees the task before it decides to block) or signalled.
            guard !onLoop && !incoming.wakeupPending else {
                return .none
            }
            incoming.wakeupPending = true
            return .signal
        }
        // After the lock: the woken loop's first step takes this lock. The fd lives as long as `self`.
        switch wake {
        case .none: break
        case .signal: Syscall.eventfdSignal(wakeFD)
        case .slice: host?.scheduleSlice(of: self)
        }
    }

    /// What `execute` does after its lock to get the task run.
    enum Wake {
        case none, signal, slice
    }

    // MARK: Time

    /// The loop's current time, from its clock: what its timers are measured against. Any thread.
    ///
    /// Code that computes a deadline for `scheduleTimer` reads this, never `Deadline.now()`, so that it
    /// follows the loop's clock when a test moves it by hand.
    public func now() -> Deadline {
        clockIsMonotonic ? .now() : readGivenClock()
    }

    /// The given clock's time; kept out of line so that `now()` stays small on the real path.
    @inline(never)
    private func readGivenClock() -> Deadline {
        clock.now()
    }

    // MARK: Timers (loop thread only)

    /// Runs `task` on the loop thread once `deadline` has passed on the loop's clock (never before).
    @discardableResult
    public func scheduleTimer(at deadline: Deadline, _ task: @escaping () -> Void) -> TimerID {
        preconditionInEventLoop()
        return timers.schedule(at: deadline, task)
    }

    /// Cancels a timer. Unknown, fired or already cancelled ids are ignored.
    public func cancelTimer(_ id: TimerID) {
        preconditionInEventLoop()
        timers.cancel(id)
    }

    /// The deadline of the earliest timer still scheduled, or nil when there is none. For the package's
    /// manual clock (TestSupport), which moves time from one deadline to the next.
    package func earliestTimerDeadline() -> Deadline? {
        preconditionInEventLoop()
        return timers.earliestDeadline()
    }

    // MARK: End of iteration (loop thread only)

    /// Runs `work` once this iteration's timers, queued tasks and I/O events have all been handled, before
    /// the loop waits again: for batching what they produce (one hand-off per iteration instead of one per
    /// event). Work added by such work runs in the same iteration.
    public func atEndOfIteration(_ work: @escaping () -> Void) {
        preconditionInEventLoop()
        endOfIteration.append(work)
    }

    // MARK: The loop (loop thread)

    private func run() {
        threadID.store(pthread_self(), ordering: .releasing)
        let events = UnsafeMutableBufferPointer<fw_epoll_event>.allocate(capacity: Self.eventBatch)
        defer {
            events.deallocate()
        }
        while true {
            let count: Int
            do {
                count = try Syscall.epollWait(epollFD, into: events, timeoutMilliseconds: waitTimeout())
            } catch {
                preconditionFailure("\(error) in event loop \(name)")
            }
            // Awake: `execute` from other threads needs no signal until the loop decides to block again.
            let stopping = incoming.withLock { incoming -> Bool in
                incoming.wakeupPending = true
                return incoming.isShuttingDown
            }
            if stopping {
                break
            }
            iterate(UnsafeMutableBufferPointer(rebasing: events[0..<count]), inputFirst: false)
        }
        finish()
        threadID.store(0, ordering: .releasing)
    }

    /// One iteration's work on the harvested `events`: timers due, the queued tasks and the events (the
    /// events first when `inputFirst`), then the end-of-iteration work. Returns whether anything ran.
    @discardableResult
    func iterate(_ events: UnsafeMutableBufferPointer<fw_epoll_event>, inputFirst: Bool) -> Bool {
        harvested = events
        if inputFirst { dispatch(events) }
        var worked = runExpiredTimers()
        worked = runQueuedTasks() || worked
        if !inputFirst { dispatch(events) }
        worked = !endOfIteration.isEmpty || !events.isEmpty || worked
        runEndOfIteration()
        harvested = UnsafeMutableBufferPointer(start: nil, count: 0)
        return worked
    }

    /// What a stopping loop still does: the tasks accepted before shutdown; then it drops its timers and
    /// registrations (releasing their handlers here, on the loop).
    func finish() {
        runQueuedTasks()
        runEndOfIteration()
        timers.removeAll()
        registrations = [:]
    }

    /// The epoll_wait timeout: 0 with queued tasks or a due timer, the next timer rounded up to ms, or
    /// -1 (no timer, or a clock that only moves when someone wakes the loop). A timeout other than 0 is the
    /// decision to block: from then on, `execute` from another thread signals the eventfd.
    private func waitTimeout() -> Int32 {
        let timeout = timerTimeout()
        let blocks = incoming.withLock { incoming -> Bool in
            guard incoming.tasks.isEmpty, !incoming.isShuttingDown, timeout != 0 else {
                return false
            }
            incoming.wakeupPending = false
            return true
        }
        return blocks ? timeout : 0
    }

    /// The time to the earliest timer as an epoll_wait timeout (see `waitTimeout`), tasks left aside.
    func timerTimeout() -> Int32 {
        guard let deadline = timers.earliestDeadline() else {
            return -1
        }
        let now = now()
        guard deadline > now else {
            return 0
        }
        guard clockAdvancesByItself else {
            return -1
        }
        let nanoseconds = deadline.uptimeNanoseconds - now.uptimeNanoseconds
        let milliseconds = nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1)
        return Int32(clamping: milliseconds)
    }

    /// Runs the timers due; returns whether any was.
    private func runExpiredTimers() -> Bool {
        guard let earliest = timers.earliestDeadline() else { return false }
        let now = now()
        guard earliest <= now else { return false }
        for id in timers.popExpired(now: now) {
            timers.take(id)?()
        }
        return true
    }

    private func runEndOfIteration() {
        while !endOfIteration.isEmpty {
            var work = spareEndOfIteration
            spareEndOfIteration = []
            swap(&work, &endOfIteration)
            for item in work {
                item()
            }
            work.removeAll(keepingCapacity: work.count <= Self.keptListCapacity)
            spareEndOfIteration = work
        }
    }

    /// Runs the tasks queued so far; returns whether there were any.
    @discardableResult
    private func runQueuedTasks() -> Bool {
        var tasks = spareTasks
        spareTasks = []
        incoming.withLock { incoming in
            swap(&tasks, &incoming.tasks)
        }
        for task in tasks {
            task()
        }
        let ran = !tasks.isEmpty
        // The tasks (and what they captured) are released here, outside the lock.
        tasks.removeAll(keepingCapacity: tasks.count <= Self.keptListCapacity)
        spareTasks = tasks
        return ran
    }
}
