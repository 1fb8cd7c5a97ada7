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
/// those EventLoop+Registrations.swift uses too.
public final class EventLoop: @unchecked Sendable { // each stored property says its guard
    // MARK: State

    /// Cross-thread work, guarded by `incoming`.
    private struct Incoming {
        var tasks: [@Sendable () -> Void] = []
        /// The loop is awake (from epoll_wait's return until it decides to block with no task queued), or
        /// the eventfd was signalled since that decision: `execute` need not signal it.
        var wakeupPending = true
        var isShuttingDown = false
    }

    /// The registration id of the eventfd; real registrations count from 1.
    static let wakeupID: UInt64 = 0
    /// The most events harvested per epoll_wait (the C shim's batch size).
    private static let eventBatch = 64

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
    private let threadID = Atomic<UInt>(0)
    /// Any thread: set by the first `shutdown`.
    private let shutdownStarted = Atomic<Bool>(false)
    /// Any thread: tasks from `execute` and the shutdown flag.
    private let incoming = LockedBox(Incoming())
    /// Written once in `init` (the loop thread never reads it); read by `shutdown`.
    private var thread = pthread_t()

    /// Loop thread only.
    var registrations: [UInt64: Registration] = [:]
    /// Loop thread only.
    var nextRegistrationID: UInt64 = 1
    /// Loop thread only.
    private var timers = TimerQueue()
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
    public init(name: String, clock: any EventLoopClock = MonotonicClock()) throws(IOError) {
        self.name = name
        self.clock = clock
        clockIsMonotonic = clock is MonotonicClock
        clockAdvancesByItself = clock.advancesByItself
        epollFD = try Syscall.epollCreate()
        do throws(IOError) {
            wakeFD = try Syscall.eventfdCreate()
        } catch {
            Syscall.close(epollFD)
            throw error
        }
        do throws(IOError) {
            try Syscall.epollControl(
                epollFD, op: EPOLL_CTL_ADD, fd: wakeFD, events: FW_EPOLLIN, data: Self.wakeupID)
            thread = try PosixThread.spawn(name: name, detached: false) { [self] in
                run()
            }
        } catch {
            // Every stored property is set: `deinit` runs and closes the eventfd.
            Syscall.close(epollFD)
            throw error
        }
    }

    deinit {
        Syscall.close(wakeFD)
    }

    /// Stops the loop from another thread and waits for its thread to end, then closes the epoll
    /// instance (the eventfd goes with the loop). Tasks accepted before the call still run; timers and IO
    /// do not.
    /// Later calls return at once.
    public func shutdown() {
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
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let onLoop = inEventLoop
        let signal = incoming.withLock { incoming -> Bool in
            guard !incoming.isShuttingDown else {
                return false
            }
            incoming.tasks.append(task)
            // No signal when the loop is awake (it sees the task before it decides to block) or signalled.
            guard !onLoop && !incoming.wakeupPending else {
                return false
            }
            incoming.wakeupPending = true
            return true
        }
        // After the lock: the woken loop's first step takes this lock. The fd lives as long as `self`.
        if signal {
            Syscall.eventfdSignal(wakeFD)
        }
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
            harvested = UnsafeMutableBufferPointer(rebasing: events[0..<count])
            runExpiredTimers()
            runQueuedTasks()
            dispatch(harvested)
            runEndOfIteration()
            harvested = UnsafeMutableBufferPointer(start: nil, count: 0)
        }
        runQueuedTasks()
        runEndOfIteration()
        timers.removeAll()
        registrations = [:]
        threadID.store(0, ordering: .releasing)
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
    private func timerTimeout() -> Int32 {
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

    private func runExpiredTimers() {
        for id in timers.popExpired(now: now()) {
            timers.take(id)?()
        }
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

    private func runQueuedTasks() {
        var tasks = spareTasks
        spareTasks = []
        incoming.withLock { incoming in
            swap(&tasks, &incoming.tasks)
        }
        for task in tasks {
            task()
        }
        // The tasks (and what they captured) are released here, outside the lock.
        tasks.removeAll(keepingCapacity: tasks.count <= Self.keptListCapacity)
        spareTasks = tasks
    }
}
