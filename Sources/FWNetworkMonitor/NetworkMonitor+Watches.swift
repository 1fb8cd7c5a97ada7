// NetworkMonitor+Watches: subscribers to the path to one destination.
//
// A watch's first answer waits for a barrier: an acknowledged no-op sent on the monitor's socket after the
// watch was made. Its acknowledgement arrives after every notification the kernel queued before it, so the
// first answer reflects every change made before `watch` was called (a caller that just saw a connect fail
// for want of a route is never told "reachable" by a view that has not yet heard the route go). A host name
// is then resolved off the loop (Resolver); it is resolved again after each change of the view while its
// last lookup failed (no network, no DNS). After the first answer a watch hears only changes of its path.
// Answers run on the monitor's loop thread, never under the lock.

import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - NetworkWatch

/// A subscription to the path to one destination; cancelled by `cancel()` or when released.
public final class NetworkWatch: Sendable {
    private let monitor: NetworkMonitor
    private let id: UInt64

    init(monitor: NetworkMonitor, id: UInt64) {
        self.monitor = monitor
        self.id = id
    }

    deinit {
        cancel()
    }

    /// Stops the updates. Any thread; an update already being delivered may still arrive.
    public func cancel() {
        monitor.state.withLock { _ = $0.watches.removeValue(forKey: id) }
    }
}

// MARK: - Watches

extension NetworkMonitor {
    /// One subscriber.
    struct Watch {
        /// Where the barrier of a new watch stands.
        enum Barrier {
            case notSent
            case sent(UInt32)
            case passed
        }

        /// Where the lookup of a host name stands.
        enum Lookup {
            case needed
            case inFlight
            case idle
        }

        let destination: NetworkDestination
        let onUpdate: @Sendable (NetworkPath) -> Void
        var barrier = Barrier.notSent
        var lookup = Lookup.needed
        /// The answer of the last lookup of a host name, nil before the first.
        var answer: Result<[IPAddress], ResolverError>?
        /// The last path the subscriber was told.
        var delivered: NetworkPath?

        /// Whether the destination is a name that must be looked up.
        var needsLookup: Bool {
            guard case .host = destination.target else {
                return false
            }
            return destination.numericAddress == nil
        }
    }

    typealias Update = (onUpdate: @Sendable (NetworkPath) -> Void, path: NetworkPath)

    /// Calls `onUpdate` on the monitor's loop thread with the path to `destination` — first as soon as it
    /// is known (see the file comment), then whenever it changes — until the watch is cancelled or
    /// released. A stopped monitor never calls it.
    public func watch(_ destination: NetworkDestination,
                      onUpdate: @escaping @Sendable (NetworkPath) -> Void) -> NetworkWatch {
        let id = state.withLock { state in
            let id = state.nextWatchID
            state.nextWatchID += 1
            if !state.stopped {
                state.watches[id] = Watch(destination: destination, onUpdate: onUpdate)
            }
            return id
        }
        loop.execute { [self] in
            sendBarrier(for: id)
        }
        return NetworkWatch(monitor: self, id: id)
    }

    // MARK: Loop thread

    private func sendBarrier(for id: UInt64) {
        loop.preconditionInEventLoop()
        let sequence = socket.nextSequence()
        let sent = socket.fd >= 0 && ((try? socket.send(NetlinkRequest.barrier(sequence: sequence))) ?? false)
        let updates = state.withLock { state -> [Update] in
            guard state.watches[id] != nil else {
                return []
            }
            // Without a barrier on its way, the answer is given from the view as it is.
            state.watches[id]?.barrier = sent ? .sent(sequence) : .passed
            return sent ? [] : updatesLocked(&state)
        }
        deliver(updates)
        startLookups()
    }

    /// Applies `messages` (classifying interfaces before taking the lock), passes the barriers they
    /// acknowledge, and tells the watches whose path changed.
    func apply(_ messages: [NetlinkMessage]) {
        loop.preconditionInEventLoop()
        guard !messages.isEmpty else {
            return
        }
        var kinds: [String: NetworkInterface.Kind] = [:]
        for case .link(let link) in messages where kinds[link.name] == nil {
            kinds[link.name] = classifier.kind(of: link.name)
        }
        let updates = state.withLock { state -> [Update] in
            var changed = false
            for message in messages {
                if case .error(let sequence, _) = message {
                    passBarrierLocked(sequence, &state)
                } else if state.view.apply(message, classify: { kinds[$0] ?? .other }) {
                    changed = true
                }
            }
            if changed {
                retryFailedLookupsLocked(&state)
            }
            return updatesLocked(&state)
        }
        deliver(updates)
        startLookups()
    }

    /// Every watch's barrier counts as passed; returns the updates that are now due.
    func passAllBarriersLocked(_ state: inout State) -> [Update] {
        for id in state.watches.keys {
            state.watches[id]?.barrier = .passed
        }
        retryFailedLookupsLocked(&state)
        return updatesLocked(&state)
    }

    private func passBarrierLocked(_ sequence: UInt32, _ state: inout State) {
        for (id, watch) in state.watches {
            if case .sent(sequence) = watch.barrier {
                state.watches[id]?.barrier = .passed
            }
        }
    }

    private func retryFailedLookupsLocked(_ state: inout State) {
        for (id, watch) in state.watches where watch.lookup == .idle {
            if case .failure = watch.answer {
                state.watches[id]?.lookup = .needed
            }
        }
    }

    /// The paths that changed for watches past their barrier, recorded as delivered.
    private func updatesLocked(_ state: inout State) -> [Update] {
        var updates: [Update] = []
        for (id, watch) in state.watches {
            guard case .passed = watch.barrier,
                  let path = Self.path(to: watch.destination, answer: watch.answer, in: state.view),
                  path != watch.delivered else { continue }
            state.watches[id]?.delivered = path
            updates.append((watch.onUpdate, path))
        }
        return updates
    }

    /// Starts the lookups of host names that need one (outside the lock).
    func startLookups() {
        let due = state.withLock { state -> [(UInt64, String)] in
            var due: [(UInt64, String)] = []
            for (id, watch) in state.watches where watch.needsLookup && watch.lookup == .needed {
                guard case .passed = watch.barrier, case .host(let host) = watch.destination.target else { continue }
                state.watches[id]?.lookup = .inFlight
                due.append((id, host))
            }
            return due
        }
        for (id, host) in due {
            Resolver.resolve(host: host, port: 0) { [self] result in
                loop.execute { [self] in lookupFinished(id, result) }
            }
        }
    }

    private func lookupFinished(_ id: UInt64, _ result: Result<[SocketAddress], ResolverError>) {
        loop.preconditionInEventLoop()
        let updates = state.withLock { state -> [Update] in
            guard state.watches[id] != nil else {
                return []
            }
            state.watches[id]?.answer = result.map { $0.map(IPAddress.init) }
            state.watches[id]?.lookup = .idle
            return updatesLocked(&state)
        }
        deliver(updates)
    }

    /// Tells the subscribers, in no particular order (each watch's own updates stay in order: they are
    /// all delivered on the loop thread).
    func deliver(_ updates: [Update]) {
        for update in updates {
            update.onUpdate(update.path)
        }
    }

    /// The path to `destination` in `view`: for a host name, through the addresses of its lookup's
    /// `answer` (the first reachable one decides; a failed lookup is unreachable); nil while a name has no
    /// answer yet.
    static func path(to destination: NetworkDestination, answer: Result<[IPAddress], ResolverError>?,
                     in view: NetworkView) -> NetworkPath? {
        if case .defaultRoute = destination.target {
            return view.defaultPath()
        }
        if let numeric = destination.numericAddress {
            return view.path(to: numeric)
        }
        switch answer {
        case nil:
            return nil
        case .failure:
            return .unreachable
        case .success(let addresses):
            return addresses.lazy.map(view.path(to:)).first(where: \.isReachable) ?? .unreachable
        }
    }
}
