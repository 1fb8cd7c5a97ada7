// FaultRelay: one connection of a FaultProxy, relayed on its own thread with non-blocking sockets and poll.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - FaultRelay

/// Relays one accepted connection to the upstream server, both directions in one poll loop, and applies the
/// connection's fault. Each direction is a `Half`: bytes read from its source wait in `pending` until its
/// sink takes them; an end of stream is passed on (shutdown for writing) once they are all written. The
/// fault's direction reads no further than `atByte` until the fault triggers.
///
/// The relay ends when both directions ended, when either side resets or fails, when the fault closes the
/// connection, or when the proxy stops (the listener aborts the client's socket); a clean end sends FIN both
/// ways and reads what is left, a reset sends RST. Only the connection's thread uses it.
final class FaultRelay {
    private struct Half {
        let source: Int32
        let sink: Int32
        var pending: [UInt8] = []
        /// Bytes read from the source so far.
        var taken = 0
        var sourceEnded = false
        var sinkShut = false
        /// The fault still waits for this direction to reach its byte.
        var armed = false
        var dropping = false
        var held = false
        var pausedUntil: ContinuousClock.Instant?
        /// Throttled: bytes a second, and the bytes that may be read now.
        var rate: Int?
        var allowance = 0.0
    }

    /// How the relay ends.
    private enum Ending {
        case close
        case reset
    }

    /// How often the loop looks at the clock while a fault is timed (throttle, delay, close when idle).
    private static let pollMilliseconds: Int32 = 5
    /// How long it waits for the sockets otherwise (a stop wakes it at once: it shuts the client down).
    private static let idlePollMilliseconds: Int32 = 100
    /// POLLRDHUP: the peer shut its sending side down (Linux; Glibc only declares it for _GNU_SOURCE).
    private static let pollReadHangUp: Int16 = 0x2000
    private static let readSize = 64 * 1024
    private static let maxPending = 256 * 1024

    private let client: ScriptedConnection
    private let fault: FaultProxy.Fault
    private let clock = ContinuousClock()
    private var halves: [Half] = []
    private var lastMove: ContinuousClock.Instant
    private var lastRefill: ContinuousClock.Instant

    init(client: ScriptedConnection, fault: FaultProxy.Fault) {
        self.client = client
        self.fault = fault
        self.lastMove = clock.now
        self.lastRefill = clock.now
    }

    /// Relays until the connection ends (connection thread).
    func run(upstreamPort: Int) throws {
        guard let clientSocket = client.descriptor else { return }
        if case .acceptAndHold = fault.kind {
            holdUntilClosed(clientSocket)
            return
        }
        let upstream = try PosixSocket.connectToLoopback(port: upstreamPort)
        var ending = Ending.close
        defer { finish(upstream: upstream, ending) }
        for descriptor in [clientSocket, upstream] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        halves = [Half(source: clientSocket, sink: upstream), Half(source: upstream, sink: clientSocket)]
        let armedHalf = fault.direction == .upstream ? 0 : 1
        switch fault.kind {
        case .pass, .acceptAndHold, .closeWhenIdle: break
        default: halves[armedHalf].armed = true
        }
        while !client.isAborted {
            if let end = step() {
                ending = end
                return
            }
        }
    }

    // MARK: One turn of the loop

    /// Polls both sockets once and moves what can move; the ending when the relay is over.
    private func step() -> Ending? {
        var entries = [pollfd(fd: halves[0].source, events: 0, revents: 0),
                       pollfd(fd: halves[1].source, events: 0, revents: 0)]
        for index in 0..<2 {
            if wantsRead(index) || awaitsTrigger(index) { entries[index].events |= Int16(POLLIN) }
            if halves[index].held { entries[index].events |= Self.pollReadHangUp }
            if !halves[index].pending.isEmpty, !isPaused(index) { entries[1 - index].events |= Int16(POLLOUT) }
        }
        let ready = poll(&entries, 2, isTimed ? Self.pollMilliseconds : Self.idlePollMilliseconds)
        if ready < 0 { return errno == EINTR ? nil : .reset }
        refillAllowances()
        let movedBefore = lastMove
        for index in 0..<2 {
            if let end = service(index, sourceEvents: entries[index].revents, sinkEvents: entries[1 - index].revents) {
                return end
            }
        }
        // A hang-up on a socket this turn could not act on (its direction paused) is reported at once again:
        // wait a little instead of spinning.
        if ready > 0, lastMove == movedBefore { usleep(UInt32(Self.pollMilliseconds) * 1000) }
        return idleEnding() ?? (halves.allSatisfy { $0.sourceEnded && $0.pending.isEmpty } ? .close : nil)
    }

    /// Moves one direction: triggers its fault, reads, writes, passes its end on.
    private func service(_ index: Int, sourceEvents: Int16, sinkEvents: Int16) -> Ending? {
        let readable = sourceEvents & Int16(POLLIN | POLLHUP | POLLERR) != 0
        if halves[index].held, sourceEvents & (Self.pollReadHangUp | Int16(POLLHUP | POLLERR)) != 0 { return .close }
        if readable, let end = triggerIfDue(index) { return end }
        if readable, wantsRead(index), let end = read(index) { return end }
        if sinkEvents & Int16(POLLOUT | POLLERR | POLLHUP) != 0, let end = write(index) { return end }
        if halves[index].armed, case .hold = fault.kind, halves[index].taken == fault.atByte,
           halves[index].pending.isEmpty {
            halves[index].armed = false
            halves[index].held = true
        }
        if halves[index].sourceEnded, halves[index].pending.isEmpty, !halves[index].sinkShut {
            halves[index].sinkShut = true
            shutdown(halves[index].sink, Int32(SHUT_WR))
        }
        return nil
    }

    /// Whether something depends on the clock now: a throttled or paused direction, an idle close.
    private var isTimed: Bool {
        if case .closeWhenIdle = fault.kind { return true }
        return halves.contains { $0.rate != nil || $0.pausedUntil != nil }
    }

    private func wantsRead(_ index: Int) -> Bool {
        let half = halves[index]
        guard !half.sourceEnded, !half.held, !isPaused(index), half.pending.count < Self.maxPending else {
            return false
        }
        if half.armed, half.taken >= fault.atByte { return false }
        if half.rate != nil, half.allowance < 1 { return false }
        return true
    }

    /// The fault waits for the byte after `atByte` to arrive in this direction.
    private func awaitsTrigger(_ index: Int) -> Bool {
        guard halves[index].armed, halves[index].taken >= fault.atByte, halves[index].pending.isEmpty else {
            return false
        }
        if case .hold = fault.kind { return false }
        return true
    }

    private func isPaused(_ index: Int) -> Bool {
        guard let until = halves[index].pausedUntil else { return false }
        if clock.now >= until {
            halves[index].pausedUntil = nil
            return false
        }
        return true
    }

    // MARK: The fault

    /// Applies the fault once its direction went through `atByte` bytes and more arrive.
    private func triggerIfDue(_ index: Int) -> Ending? {
        guard awaitsTrigger(index) else { return nil }
        switch fault.kind {
        case .truncate:
            return .close
        case .reset:
            return .reset
        case .blackhole:
            halves[index].dropping = true
        case .delay(let seconds):
            halves[index].pausedUntil = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        case .throttle(let rate):
            halves[index].rate = rate
        case .hold, .pass, .acceptAndHold, .closeWhenIdle:
            return nil
        }
        halves[index].armed = false
        return nil
    }

    /// The ending of a `closeWhenIdle` fault once the connection was used and then idle long enough.
    private func idleEnding() -> Ending? {
        guard case .closeWhenIdle(let seconds, let reset) = fault.kind,
              halves.allSatisfy({ $0.taken > 0 && $0.pending.isEmpty }),
              lastMove.duration(to: clock.now) >= .milliseconds(Int(seconds * 1000)) else { return nil }
        return reset ? .reset : .close
    }

    private func refillAllowances() {
        let now = clock.now
        let elapsed = lastRefill.duration(to: now) / .seconds(1)
        lastRefill = now
        for index in 0..<2 {
            guard let rate = halves[index].rate else { continue }
            // At most a tenth of a second's worth at once, so the rate holds over short spans too.
            halves[index].allowance = min(Double(rate) / 10, halves[index].allowance + Double(rate) * elapsed)
        }
    }

    // MARK: Bytes

    private func read(_ index: Int) -> Ending? {
        var limit = Self.readSize
        if halves[index].armed { limit = min(limit, fault.atByte - halves[index].taken) }
        if halves[index].rate != nil { limit = min(limit, Int(halves[index].allowance)) }
        guard limit > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { recv(halves[index].source, $0.baseAddress, limit, 0) }
        if count < 0 {
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? nil : .reset
        }
        guard count > 0 else {
            halves[index].sourceEnded = true
            return nil
        }
        lastMove = clock.now
        halves[index].taken += count
        if halves[index].rate != nil { halves[index].allowance -= Double(count) }
        if !halves[index].dropping { halves[index].pending += buffer[..<count] }
        return nil
    }

    private func write(_ index: Int) -> Ending? {
        guard !halves[index].pending.isEmpty, !isPaused(index) else { return nil }
        let count = halves[index].pending.withUnsafeBytes { bytes in
            send(halves[index].sink, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }
        if count < 0 {
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? nil : .reset
        }
        lastMove = clock.now
        halves[index].pending.removeFirst(count)
        return nil
    }

    // MARK: Opening and closing

    /// Accept-and-hold: reads nothing and waits until the client goes or the proxy stops.
    private func holdUntilClosed(_ socket: Int32) {
        while !client.isAborted {
            var entry = pollfd(fd: socket, events: Self.pollReadHangUp, revents: 0)
            if poll(&entry, 1, Self.idlePollMilliseconds) > 0, entry.revents != 0 { return }
        }
    }

    private func finish(upstream: Int32, _ ending: Ending) {
        if ending == .reset {
            try? PosixSocket.setAbortiveClose(upstream)
            client.reset()
        } else {
            drainUntilClosed(upstream)
            client.close()
        }
        Glibc.close(upstream)
    }

    /// A clean end: FIN to both sides, then what they still send is read and dropped until they close too
    /// (a second at most) — closing a socket with unread bytes would send RST instead.
    private func drainUntilClosed(_ upstream: Int32) {
        guard let clientSocket = client.descriptor else { return }
        var open = [clientSocket, upstream]
        open.forEach { shutdown($0, Int32(SHUT_WR)) }
        let deadline = clock.now + .seconds(1)
        var buffer = [UInt8](repeating: 0, count: Self.readSize)
        while !open.isEmpty, clock.now < deadline, !client.isAborted {
            var entries = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&entries, nfds_t(entries.count), Self.pollMilliseconds) > 0 else { continue }
            open = zip(open, entries).compactMap { socket, entry in
                guard entry.revents != 0 else { return socket }
                let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                return count > 0 || (count < 0 && errno == EAGAIN) ? socket : nil
            }
        }
    }
}
