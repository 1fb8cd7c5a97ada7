import FWLoop

// MARK: - HTTP1Connection: its timers
//
// A connection has one deadline timer (`timer`): the handshake timeout while it connects (`armTimer`), then a
// watch — the request's idle timeout while a request is active, the idle-connection timeout while it is idle.
// A watch is armed lazily: a timer already armed for a watch stays when it fires no later than the new watch is
// due; when it fires early it re-arms for what is left. Back-to-back keep-alive requests therefore schedule and
// cancel no timer at all (the 60 s request timer of the first stays, and fires once a minute to re-arm),
// where each request used to cancel and schedule two (a closure allocated and freed for each). Loop thread only.

/// What a connection's watch timer watches.
enum TimerWatch {
    /// Nothing: the timer, if any, is the handshake's (`armTimer`).
    case none
    /// The active request fails once no byte moved for this long while its task wanted the response read.
    case requestIdle(Duration)
    /// The idle connection leaves the pool at `since` + `idleConnectionTimeout`.
    case idleConnection(since: Deadline)
}

extension HTTP1Connection {
    /// Arms the timer at `deadline` with `fire` (a handshake's timeout), replacing any timer or watch.
    func armTimer(at deadline: Deadline, _ fire: @escaping () -> Void) {
        cancelTimer()
        timer = loop.scheduleTimer(at: deadline) { [self] in
            timer = nil
            fire()
        }
    }

    /// Stops the timer and whatever it watched.
    func cancelTimer() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        watching = .none
        watchDeadline = nil
    }

    func cancelContinueTimer() {
        if let continueTimer { loop.cancelTimer(continueTimer) }
        continueTimer = nil
    }

    /// Fails the request when no byte moved for `timeout` while the task wanted the response read;
    /// rescheduled lazily instead of on every read. While reading is paused the timer lapses (it is armed
    /// again when reading resumes).
    func armRequestIdleTimer(_ timeout: Duration) {
        watch(.requestIdle(timeout), due: lastActivity + timeout)
    }

    /// The idle connection leaves the pool after `idleConnectionTimeout` without a request.
    func armIdleConnectionTimer() {
        let now = loop.now()
        watch(.idleConnection(since: now), due: now + idleConnectionTimeout)
    }

    /// Watches `purpose`, due at `due`: the armed watch timer stays when it fires no later, else it is armed at
    /// `due` (a handshake's timer is replaced).
    private func watch(_ purpose: TimerWatch, due: Deadline) {
        watching = purpose
        if timer != nil, let armed = watchDeadline, armed <= due { return }
        if let timer { loop.cancelTimer(timer) }
        watchDeadline = due
        timer = loop.scheduleTimer(at: due) { [self] in
            timer = nil
            watchDeadline = nil
            watchFired()
        }
    }

    /// The watch timer fired: what it watches is due now, or it re-arms for the rest.
    private func watchFired() {
        switch watching {
        case .none:
            return
        case .requestIdle(let timeout):
            guard machine.activeRequest != nil, !machine.isReadingPaused else { return }
            if loop.now() - lastActivity >= timeout {
                watching = .none
                run(machine.failActiveRequest(.timedOut("no bytes for \(timeout)")))
            } else {
                armRequestIdleTimer(timeout)
            }
        case .idleConnection(let since):
            if loop.now() >= since + idleConnectionTimeout {
                watching = .none
                transport.idleTimeoutFired(self)
            } else {
                watch(.idleConnection(since: since), due: since + idleConnectionTimeout)
            }
        }
    }
}
