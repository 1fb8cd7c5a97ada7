import FWLoop

// MARK: - HappyEyeballsStateMachine
//
// Racing connection attempts (RFC 8305, simplified) as a pure value type; the connection runs the
// sockets and the timer.
//
//   resolving ──resolved──▶ racing ──an attempt connected──▶ done(winner)
//                              │
//                              └──every address tried and every attempt failed──▶ failed(reason)
//
// The reason is the last error, except that "no route" (`IOError.isNoRoute`) never replaces another
// error: a host that refused on one address is not offline because another address had no route.
//
// Addresses are ordered IPv6 first, then alternating families (v6, v4, v6, v4, ...), so that a broken
// IPv6 path costs at most one `attemptDelay`. One attempt starts at once; the next starts when the
// delay (250 ms) passes or as soon as an attempt fails, while earlier attempts keep going. The first
// attempt to connect wins and every other attempt is closed.

/// The connection-racing state machine of one new connection.
struct HappyEyeballsStateMachine {
    /// Identifies one attempt (its index in the address order).
    typealias AttemptID = Int

    /// What the connection must do.
    enum Action: Equatable {
        /// Open a socket to `address` and connect it; report `attemptConnected` or `attemptFailed`.
        case startAttempt(AttemptID, SocketAddress)
        /// Call `delayElapsed()` after the attempt delay (replacing any earlier timer).
        case scheduleDelay
        /// Close these attempts' sockets (the race is over for them).
        case closeAttempts([AttemptID])
        /// Adopt this attempt's socket: the connection is established.
        case succeed(AttemptID)
        /// Every attempt failed; the error explains why (the last, unless that was "no route").
        case fail(IOError)
    }

    /// How long an attempt gets before the next one starts alongside it.
    static let attemptDelay: Duration = .milliseconds(250)

    private enum State {
        case resolving
        /// `addresses` in attempt order; `nextID` is the next one's index (an attempt's id is its address's):
        /// the attempts started are `0 ..< nextID`, and those in flight are the ones not in `failed` (a list
        /// made only when an attempt fails: a set of the attempts in flight cost each new connection a table).
        case racing(addresses: [SocketAddress], nextID: AttemptID, failed: [AttemptID], lastError: IOError?)
        case done
    }

    private var state = State.resolving

    /// Name resolution found `addresses` (non-empty).
    mutating func resolved(_ addresses: [SocketAddress]) -> [Action] {
        guard case .resolving = state else { preconditionFailure("resolved() in state \(state)") }
        state = .racing(addresses: Self.interleaved(addresses), nextID: 0, failed: [], lastError: nil)
        return startNext()
    }

    /// The attempt delay passed without a winner.
    mutating func delayElapsed() -> [Action] {
        guard case .racing = state else { return [] }
        return startNext()
    }

    /// An attempt connected: it wins, the others close.
    mutating func attemptConnected(_ id: AttemptID) -> [Action] {
        guard case .racing(_, let nextID, let failed, _) = state, Self.isInFlight(id, nextID, failed) else {
            return []
        }
        state = .done
        let others = (0..<nextID).filter { $0 != id && !failed.contains($0) }
        return others.isEmpty ? [.succeed(id)] : [.closeAttempts(others), .succeed(id)]
    }

    /// An attempt failed: start the next one now, or fail when nothing is left.
    mutating func attemptFailed(_ id: AttemptID, error: IOError) -> [Action] {
        guard case .racing(let addresses, let nextID, var failed, let previous) = state,
              Self.isInFlight(id, nextID, failed) else {
            return []
        }
        state = .done // the list is changed in place (no copy), then put back
        failed.append(id)
        let reason = error.isNoRoute ? (previous ?? error) : error
        state = .racing(addresses: addresses, nextID: nextID, failed: failed, lastError: reason)
        if nextID == addresses.count {
            guard failed.count == nextID else { return [] }
            state = .done
            return [.fail(reason)]
        }
        return startNext()
    }

    /// The connection gave up (timeout, shutdown): every attempt in flight closes.
    mutating func abandon() -> [Action] {
        guard case .racing(_, let nextID, let failed, _) = state else {
            state = .done
            return []
        }
        state = .done
        let inFlight = (0..<nextID).filter { !failed.contains($0) }
        return inFlight.isEmpty ? [] : [.closeAttempts(inFlight)]
    }

    // MARK: Helpers

    /// Whether attempt `id` started and has not failed.
    private static func isInFlight(_ id: AttemptID, _ nextID: AttemptID, _ failed: [AttemptID]) -> Bool {
        (0..<nextID).contains(id) && !failed.contains(id)
    }

    private mutating func startNext() -> [Action] {
        guard case .racing(let addresses, let nextID, let failed, let lastError) = state,
              nextID < addresses.count else { return [] }
        state = .racing(addresses: addresses, nextID: nextID + 1, failed: failed, lastError: lastError)
        // The delay is armed only while another address waits (none for a numeric host).
        return nextID + 1 < addresses.count ? [.startAttempt(nextID, addresses[nextID]), .scheduleDelay]
                                            : [.startAttempt(nextID, addresses[nextID])]
    }

    /// IPv6 first, then alternating families, each family in resolver order.
    static func interleaved(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard addresses.count > 1 else { return addresses } // a numeric host, a one-address name: as it is
        var v6 = addresses.filter { $0.family == .ipv6 }[...]
        var v4 = addresses.filter { $0.family == .ipv4 }[...]
        var result: [SocketAddress] = []
        result.reserveCapacity(addresses.count)
        var takeV6 = !v6.isEmpty
        while let next = takeV6 ? (v6.popFirst() ?? v4.popFirst()) : (v4.popFirst() ?? v6.popFirst()) {
            result.append(next)
            takeV6.toggle()
        }
        return result
    }
}
