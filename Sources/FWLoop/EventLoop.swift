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
//      gone (deregistered this iteration, or an old registration of a reused descriptor);
//   6. runs the end-of-iteration work (`atEndOfIteration`: deliveries, flushes), then closes the
//      descriptors closed during the iteration (`closeAfterIteration`, EventLoop+Closing.swift).
// `shutdown` (another thread) marks the loop shutting down and wakes it; the thread runs the tasks
// accepted before that, drops timers and registrations (releasing handlers on the loop thread) and
// exits; `shutdown` joins it and closes the epoll fd; `deinit` closes the eventfd.
//
// Wake-ups (swift-nio's `_pendingTaskPop` rule): `wakeupPending`, under `incoming`'s lock with the tasks,
// is true from epoll_wait's return until the loop, finding no task, decides to block. `execute` from
// another thread signals only if it was false (setting it), and writes the eventfd after the lock: an awake
// loop is never signalled, a woken one never waits for its waker's lock. One lock for the tasks and the
// flag loses no wake-up. The eventfd stays open until `deinit` (a signal may follow `shutdown`).
// `reportedInput(for:)` answers from the events this iteration harvested and has not dispatched yet (a
// threaded loop's timers and tasks run before dispatch).
//
// Registrations are level-triggered: a handler is called every iteration while its descriptor is
// ready for what it asked (EventLoop+Registrations.swift).
//
// Time comes from the `EventLoopClock` given at init (see EventLoopClock.swift): the real monotonic
// clock by default, a clock moved by hand in tests.
//
// A hosted loop (`init(name:hostedBy:linger:busyPoll:)`) has no thread: its host runs it in slices, with the
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
/// those the other EventLoop+ files use too.
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

    /// The registration id of the eventfd (no registration's, see SlotTable.swift).
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
    let clockAdvancesByItself: Bool
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
    /// Loop thread only (hosted): how long a slice polls after its last work (BusyPollWindow.swift); closed on
    /// a loop with its own thread.
    @exclusivity(unchecked) var busyPollWindow = BusyPollWindow(limit: .zero, cpus: 1)
    /// Loop thread only: how many of the loop's channels wait for their peer's answer (a request written or
    /// a connection being made, its response not yet begun); a hosted slice polls only while some do
    /// (`expectAnswer(_:)`).
    package private(set) var awaitingAnswers = 0
    /// Loop thread only (hosted): the polls the slices made instead of blocking (tests read it on the loop).
    package internal(set) var busyPolls = 0
    /// Loop thread only: the widest busy-poll window in nanoseconds; 0 when the loop never polls.
    package var busyPollLimitNanoseconds: UInt64 { busyPollWindow.limit }

    /// Loop thread only: a channel starts (`true`) or stops (`false`) waiting for its peer's answer, which a
    /// hosted slice polls for while its busy-poll window is open (EventLoop+Hosted.swift). Each `true` is
    /// matched by one `false`: the channel keeps a flag and calls this only when the flag changes.
    public func expectAnswer(_ expecting: Bool) {
        awaitingAnswers += expecting ? 1 : -1
        assert(awaitingAnswers >= 0, "an answer stopped being awaited more often than it was")
    }
    /// Immutable: a hosted loop's entry in the doorbell, else 0.
    let doorbellID: UInt64
    /// Loop thread only (hosted): the events buffer the slices share.
    let sliceEvents: UnsafeMutableBufferPointer<fw_epoll_event>
    /// Loop thread only (hosted): the deadline the timerfd is armed for, if any.
    var armedTimerDeadline: Deadline?
    /// Loop thread only (hosted): the epoll descriptor is in the doorbell's set (armed once, re-armed after).
    var doorbellKnowsEpoll = false

    // The state every iteration touches is marked `@exclusivity(unchecked)`: the runtime's check of each access
    // cost about 80 instructions, some 7 accesses per small request. Every access is on the loop's thread and
    // none overlaps another of the same property: a handler, a timer or an end-of-iteration item is taken out
    // before it runs, so work it schedules finds the property free.

    /// Loop thread only.
    @exclusivity(unchecked) var registrations = SlotTable<Registration>()
    /// Loop thread only.
    @exclusivity(unchecked) var timers = TimerQueue()
    /// Loop thread only: the events this iteration's epoll_wait harvested (a view of the events buffer) until
    /// they are dispatched; empty otherwise.
    var harvested = UnsafeMutableBufferPointer<fw_epoll_event>(start: nil, count: 0)
    /// Loop thread only: work for the end of the current iteration (`atEndOfIteration`).
    @exclusivity(unchecked) var endOfIteration: [EndOfIterationItem] = []
    /// Loop thread only: emptied lists kept with their capacity, swapped in when `endOfIteration` and
    /// `incoming.tasks` are taken, so that a busy loop does not allocate a new list every iteration.
    @exclusivity(unchecked) var spareEndOfIteration: [EndOfIterationItem] = []
    var spareTasks: [@Sendable () -> Void] = []
    /// Loop thread only: descriptors to close once the current iteration's work is done
    /// (EventLoop+Closing.swift). Read every iteration.
    @exclusivity(unchecked) var closingAfterIteration: [Int32] = []
    /// A spare list that held more than this many items is let go (a burst does not pin its memory).
    static let keptListCapacity = 256

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

    /// The descriptors and the state both kinds share; a hosted loop's timerfd and doorbell entry too (the
    /// public initializers here and in EventLoop+Hosted.swift finish the job).
    init(name: String, clock: any EventLoopClock, host: (any EventLoopHost)?, linger: Duration) throws(IOError) {
        self.name = name
        self.clock = clock
        self.host = host
        clockIsMonotonic = clock is MonotonicClock
        clockAdvancesByItself = clock.advancesByItself
        lingerNanoseconds = UInt64(clamping: linger.exactNanoseconds)
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

    /// Any thread. Runs `task` on the loop thread, FIFO with other tasks, and returns true; after shutdown the
    /// task is dropped and the call returns false.
    ///
    /// On a parked hosted loop, asks the host for a slice instead of signalling.
    @discardableResult
    public func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        let onLoop = inEventLoop
        let wake = incoming.withLock { incoming -> Wake in
            guard !incoming.isShuttingDown else {
                return .dropped
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
        case .dropped: return false
        case .none: break
        case .signal: Syscall.eventfdSignal(wakeFD)
        case .slice: host?.scheduleSlice(of: self)
        }
        return true
    }

    /// What `execute` does after its lock to get the task run (`dropped`: nothing, the loop is stopping).
    enum Wake {
        case none, signal, slice, dropped
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
        endOfIteration.append(.closure(work))
    }

    /// Runs `work.runAtEndOfIteration()` as `atEndOfIteration(_:)` runs a closure, in the same order, and
    /// without allocating one: for an owner that asks every iteration (a connection's outbox, a session's
    /// deliveries). The loop holds `work` until then.
    public func atEndOfIteration(_ work: any EndOfIterationWork) {
        preconditionInEventLoop()
        endOfIteration.append(.object(work))
    }
}

/// An object with work for the end of a loop iteration (`EventLoop.atEndOfIteration(_:)`).
public protocol EndOfIterationWork: AnyObject {
    /// Called on the loop's thread, once per `atEndOfIteration(_:)`.
    func runAtEndOfIteration()
}

/// An item of the end-of-iteration list: a closure, or an object's work (no closure context to allocate).
enum EndOfIterationItem {
    case closure(() -> Void)
    case object(any EndOfIterationWork)

    func run() {
        switch self {
        case .closure(let work): work()
        case .object(let work): work.runAtEndOfIteration()
        }
    }
}
