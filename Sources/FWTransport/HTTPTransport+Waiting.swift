import FWLoop

// MARK: - HTTPTransport: requests that wait too long for a connection
//
// A request's idle timeout counts from `execute`, so it also bounds the time it waits in the pool's queue
// and the connect and TLS handshake made for it (no byte moves for it meanwhile). Each waiting request's
// deadline sits in its entry; one timer per transport (on `sweepLoop`) is armed for the earliest known
// deadline, and when it fires the sweep fails every request still waiting past its deadline with
// `timedOut`, then re-arms for the next. A request that got a connection meanwhile is left alone: from
// then on the connection's idle timer rules (writing the head is activity). Arming costs nothing in the
// common case (an idle connection is leased at once, and later waiters' deadlines are not earlier).
//
// A connection made for a waiter takes no longer to establish than that waiter may still wait; when it runs
// out of that shortened time, the waiter the pool fails with it may be another, which keeps its own deadline
// instead. (A connection that used all of `connectTimeout` fails its waiter, as a connect timeout does.)

extension HTTPTransport {
    /// Records that request `id` waits for a connection, and arms the sweep if its deadline is the earliest.
    func startWaitingLocked(_ id: RequestID, timeout: Duration, in state: inout State) -> WorkList {
        let deadline = sweepLoop.now() + timeout
        state.updateEntry(id) { $0.waitDeadline = deadline }
        if let armed = state.waitSweepArmedFor, armed <= deadline { return WorkList() }
        state.waitSweepArmedFor = deadline
        return WorkList(.armWaitSweep(deadline))
    }

    /// A connection ran out of the time its waiter had left (less than `connectTimeout`). The request the
    /// pool now fails with it may be another: one whose own deadline has not passed waits on instead (its
    /// deadline unchanged), for a connection of its own.
    func keepWaitingLocked(after action: ConnectionPoolStateMachine.Action, in state: inout State,
                           failure: TransportError) -> WorkList {
        guard case .fail(let id) = action.request, let entry = state.entries[id], entry.pendingCancel == nil,
              let deadline = entry.waitDeadline, deadline > sweepLoop.now() else {
            return resolveLocked(action, in: &state, failure: failure)
        }
        var work = resolveLocked(.init(request: .none, connection: action.connection), in: &state, failure: failure)
        let request = entry.prepared.request
        work += resolveLocked(state.pool.enqueue(id, key: request.key, priority: request.priority), in: &state,
                              failure: .shutDown)
        return work
    }

    /// Schedules a sweep at `deadline` on the sweep loop (any thread).
    func armWaitSweep(at deadline: Deadline) {
        let loop = sweepLoop
        let schedule: @Sendable () -> Void = { [weak self] in
            loop.scheduleTimer(at: deadline) { self?.sweepWaiting() }
        }
        if loop.inEventLoop { schedule() } else { loop.execute(schedule) }
    }

    /// Fails the waiting requests whose deadline passed; re-arms for the earliest one left (sweep loop).
    private func sweepWaiting() {
        let now = sweepLoop.now()
        let work: WorkList = state.withLock { state in
            var work = WorkList()
            var earliest: Deadline?
            for (id, entry) in state.entries {
                guard let deadline = entry.waitDeadline else { continue }
                let key = entry.prepared.request.key
                guard state.pool.isWaiting(id, key: key) else {
                    state.updateEntry(id) { $0.waitDeadline = nil }
                    continue
                }
                if deadline <= now {
                    let timeout = entry.prepared.request.idleTimeout
                    work += resolveLocked(state.pool.cancelWaiting(id, key: key), in: &state,
                                          failure: .timedOut("no connection to \(key) within \(timeout)"))
                } else {
                    earliest = min(earliest ?? deadline, deadline)
                }
            }
            state.waitSweepArmedFor = earliest
            if let earliest { work.append(.armWaitSweep(earliest)) }
            return work
        }
        perform(work)
    }
}
