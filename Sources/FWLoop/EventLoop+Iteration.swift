// EventLoop+Iteration: the loop thread's body and one iteration's steps (EventLoop.swift's header lists
// them), shared with a hosted loop's slices (EventLoop+Hosted.swift), and the epoll_wait timeout that is a
// threaded loop's decision to block. All of it runs on the loop thread.

import CFWShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension EventLoop {
    // MARK: The loop (loop thread)

    /// The loop thread's body (EventLoop.swift's header lists an iteration's steps).
    func run() {
        threadID.store(pthread_self(), ordering: .releasing)
        let events = UnsafeMutableBufferPointer<fw_epoll_event>.allocate(capacity: Self.eventBatch)
        defer {
            events.deallocate()
        }
        while let harvested = awaitEvents(into: events, timeout: waitTimeout()) {
            iterate(harvested, inputFirst: false)
        }
        finish()
        threadID.store(0, ordering: .releasing)
    }

    /// Waits in epoll_wait up to `timeout` ms, then marks the loop awake; returns the harvested events, or nil
    /// when shutdown was asked (the loop stops).
    func awaitEvents(into events: UnsafeMutableBufferPointer<fw_epoll_event>,
                     timeout: Int32) -> UnsafeMutableBufferPointer<fw_epoll_event>? {
        let count: Int
        do {
            count = try Syscall.epollWait(epollFD, into: events, timeoutMilliseconds: timeout)
        } catch {
            preconditionFailure("\(error) in event loop \(name)")
        }
        // Awake: `execute` from other threads needs no signal until the loop decides to block again.
        let stopping = incoming.withLock { incoming -> Bool in
            incoming.wakeupPending = true
            return incoming.isShuttingDown
        }
        return stopping ? nil : UnsafeMutableBufferPointer(rebasing: events[0..<count])
    }

    /// One iteration's work on the harvested `events`: timers due, the queued tasks and the events (the
    /// events first when `inputFirst`), then the end-of-iteration work, then the descriptors closed meanwhile
    /// (EventLoop+Closing.swift). Returns whether anything ran.
    @discardableResult
    ///
    /// `harvested` (what `reportedInput(for:)` reads) holds the events until they are dispatched: after that
    /// their handlers have been told, so work that runs later in the iteration (a hosted slice's timers and
    /// tasks, the end-of-iteration work that delivers responses) sees no input waiting.
    func iterate(_ events: UnsafeMutableBufferPointer<fw_epoll_event>, inputFirst: Bool) -> Bool {
        harvested = events
        if inputFirst { dispatchHarvested() }
        var worked = runExpiredTimers()
        worked = runQueuedTasks() || worked
        if !inputFirst { dispatchHarvested() }
        worked = !endOfIteration.isEmpty || !events.isEmpty || worked
        runEndOfIteration()
        closeDescriptorsClosedThisIteration()
        return worked
    }

    /// Dispatches `harvested`, then empties it.
    private func dispatchHarvested() {
        dispatch(harvested)
        harvested = UnsafeMutableBufferPointer(start: nil, count: 0)
    }

    /// What a stopping loop still does: the tasks accepted before shutdown; then it drops its timers and
    /// registrations (releasing their handlers here, on the loop).
    func finish() {
        runQueuedTasks()
        runEndOfIteration()
        timers.removeAll()
        registrations.removeAll()
        closeDescriptorsClosedThisIteration()
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
                item.run()
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
