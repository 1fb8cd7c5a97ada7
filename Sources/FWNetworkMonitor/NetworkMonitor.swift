// NetworkMonitor: the one kernel network-change monitor. A NETLINK_ROUTE socket joined to the link, IPv4
// and IPv6 address and route groups, registered on an event loop (no polling), keeps a NetworkView current;
// watches (NetworkMonitor+Watches.swift) hear when the path to their destination changes.
//
// Life cycle: `init` joins the groups first, then reads a dump of links, addresses and routes on a second
// socket (so no change between the two is missed: notifications queue up meanwhile and are applied after,
// which the view's idempotent apply allows), then registers the socket on the loop. On the loop, every
// readable event drains the socket, applies the messages under the lock, and then tells the watches whose
// path changed — outside the lock. When the kernel reports that it dropped notifications (`ENOBUFS`, a
// full receive queue) or a datagram did not fit, the view is rebuilt from a new dump. `shutdown` closes
// the socket; `shared` is never shut down.

import CFWNetlink
import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Watches the kernel's links, addresses and routes and tells subscribers when the way to a destination
/// changes. Thread-safe.
///
/// `@unchecked Sendable`: `socket` and `registration` are loop thread only (after `init`), checked with
/// `preconditionInEventLoop`; everything else shared is in `state`, a `LockedBox`.
public final class NetworkMonitor: @unchecked Sendable { // socket, registration: loop thread; state: LockedBox
    /// What the monitor knows, guarded by `state`.
    struct State {
        var view: NetworkView
        var watches: [UInt64: Watch] = [:]
        var nextWatchID: UInt64 = 1
        /// Set once monitoring stopped (shut down, or the kernel socket failed for good).
        var stopped = false
    }

    /// The process-wide monitor on a loop of its own (thread `fw-netmon`), started on first use; or why
    /// it could not start (no netlink in this sandbox, no descriptors or threads left).
    public static let shared: Result<NetworkMonitor, IOError> = Result { () throws(IOError) in
        let loop = try EventLoop(name: "fw-netmon")
        do throws(IOError) {
            return try NetworkMonitor(loop: loop)
        } catch {
            loop.shutdown()
            throw error
        }
    }

    /// The loop the socket is registered on; watches are told on its thread.
    public let loop: EventLoop
    let classifier: InterfaceClassifier
    /// Loop thread only after `init`.
    let socket: NetlinkSocket
    /// Loop thread only.
    private var registration: RegistrationID?
    /// The view, the watches and whether monitoring stopped.
    let state: LockedBox<State>

    // MARK: Life cycle

    /// Starts monitoring the calling thread's network namespace on `loop`. `sysfsClassNet` is where the
    /// interfaces' attributes are read (see `NetworkInterface.Kind`); tests point it at a fake tree.
    ///
    /// The loop holds the monitor until `shutdown()` (or the loop's own shutdown). Fails when the kernel
    /// refuses the netlink socket or its dump.
    public init(loop: EventLoop, sysfsClassNet: String = "/sys/class/net") throws(IOError) {
        let classifier = InterfaceClassifier(root: sysfsClassNet)
        let socket = try NetlinkSocket(groups: FW_RTMGRP_MONITOR)
        let view = try classifier.dumpView()
        self.loop = loop
        self.classifier = classifier
        self.socket = socket
        self.state = LockedBox(State(view: view))
        loop.execute { [self] in
            register()
        }
    }

    /// Stops monitoring: the socket closes and no watch hears anything more. Any thread; later calls do
    /// nothing.
    public func shutdown() {
        if loop.inEventLoop {
            stop()
        } else {
            loop.execute { [self] in stop() }
        }
    }

    /// Whether an interface other than loopback is up with an address (whatever the routes); nil once
    /// monitoring stopped.
    public func hasUsableInterface() -> Bool? {
        state.withLock { state in state.stopped ? nil : state.view.hasUsableInterface }
    }

    /// The path to `destination` as the monitor sees it now; nil when it cannot tell: a host name that no
    /// watch has looked up yet, or monitoring stopped.
    public func currentPath(to destination: NetworkDestination) -> NetworkPath? {
        state.withLock { state in
            guard !state.stopped else {
                return nil
            }
            let answer = state.watches.values.lazy.filter { $0.destination == destination }
                .compactMap(\.answer).first
            return Self.path(to: destination, answer: answer, in: state.view)
        }
    }

    // MARK: Loop thread

    private func register() {
        loop.preconditionInEventLoop()
        guard !state.withLock({ $0.stopped }) else {
            return
        }
        do throws(IOError) {
            registration = try loop.register(fd: socket.fd, interest: .readable, handler: SocketHandler(monitor: self))
        } catch {
            stop()
        }
    }

    private func stop() {
        loop.preconditionInEventLoop()
        if let registration {
            loop.deregister(registration)
        }
        registration = nil
        socket.close()
        state.withLock { state in
            state.stopped = true
            state.watches = [:]
        }
    }

    /// Drains the socket and applies what it read; rebuilds the view from a dump when messages were lost.
    func drain() {
        loop.preconditionInEventLoop()
        var messages: [NetlinkMessage] = []
        do throws(IOError) {
            while let batch = try socket.receive() {
                messages += batch
            }
            apply(messages)
        } catch {
            apply(messages)
            resynchronize()
        }
    }

    /// Replaces the view with a fresh dump (every barrier counts as passed: the dump is newer); stops
    /// monitoring when even that fails.
    func resynchronize() {
        do throws(IOError) {
            let view = try classifier.dumpView()
            let updates = state.withLock { state in
                state.view = view
                return passAllBarriersLocked(&state)
            }
            deliver(updates)
            startLookups()
        } catch {
            stop()
        }
    }
}

/// Hands the socket's readiness to its monitor (the loop holds it, and through it the monitor, while the
/// socket is registered). Loop thread only.
private final class SocketHandler: IOHandler {
    private let monitor: NetworkMonitor

    init(monitor: NetworkMonitor) {
        self.monitor = monitor
    }

    func handleIO(_ events: IOEvents) {
        monitor.drain()
    }
}
