// NetworkMonitor in the test's own network namespace, on a loop of the test's: the first answer of a watch,
// changes (messages applied to the monitor's view), no repeated answers, a rebuild from a new dump, host
// names, interface kinds from a fake sysfs tree, cancelling, releasing and shutting down. The namespace
// itself is never changed (IntegrationTests' NetworkNamespaceTests change their own namespaces).

import Foundation
import Testing

import FWLoop
import TestSupport
@testable import FWNetworkMonitor

@Suite struct NetworkMonitorTests {
    /// A monitor on a loop of its own whose interfaces' sysfs tree is a temporary directory in which
    /// `fwtest0` is a WWAN interface; shut down (monitor, loop, tree) after `body`.
    static func withMonitor<T>(_ body: (NetworkMonitor) throws -> T) throws -> T {
        let root = NSTemporaryDirectory() + "/fw-monitor-sysfs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/fwtest0", withIntermediateDirectories: true)
        try "DEVTYPE=wwan\n".write(toFile: root + "/fwtest0/uevent", atomically: true, encoding: .utf8)
        let loop = try EventLoop(name: "fw-monitor-test")
        defer {
            loop.shutdown()
            try? FileManager.default.removeItem(atPath: root)
        }
        let monitor = try NetworkMonitor(loop: loop, sysfsClassNet: root)
        defer { monitor.shutdown() }
        return try body(monitor)
    }

    /// What a watch heard, in order.
    final class Heard: Sendable {
        let paths = LockedBox<[NetworkPath]>([])

        var all: [NetworkPath] { paths.withLock { $0 } }

        func record(_ path: NetworkPath) {
            paths.withLock { $0.append(path) }
        }

        /// Waits (bounded) until `count` paths were heard.
        func wait(for count: Int) throws {
            guard waitUntil(timeout: .seconds(10), { paths.withLock { $0.count >= count } }) else {
                throw TimedOut(what: "\(count) paths (heard \(all))")
            }
        }
    }

    /// A WWAN interface 9999 that is up, with 203.0.113.2/24 and the route to its subnet.
    static let fakeInterface: [NetlinkMessage] = [
        .link(link(9999, "fwtest0", flags: upFlags)),
        .address(address(9999, "203.0.113.2", 24)),
        .route(route("203.0.113.0", 24, via: [9999]), replacing: false),
    ]

    static let fakePath = NetworkPath(interface: NetworkInterface(index: 9999, name: "fwtest0", kind: .wwan))

    @Test func aWatchHearsThePathThenEachChangeOnce() throws {
        try Self.withMonitor { monitor in
            let heard = Heard()
            let watch = monitor.watch(.host("203.0.113.77")) { heard.record($0) }
            try heard.wait(for: 1)
            let before = heard.all[0]
            #expect(before != Self.fakePath)
            try onLoop(monitor.loop) { monitor.apply(Self.fakeInterface) }
            try onLoop(monitor.loop) { monitor.apply(Self.fakeInterface) }
            try onLoop(monitor.loop) { monitor.apply([.linkRemoved(index: 9999)]) }
            try heard.wait(for: 3)
            #expect(heard.all == [before, Self.fakePath, before])
            watch.cancel()
        }
    }

    @Test func aNewDumpReplacesTheView() throws {
        try Self.withMonitor { monitor in
            let heard = Heard()
            let watch = monitor.watch(.host("203.0.113.77")) { heard.record($0) }
            try heard.wait(for: 1)
            try onLoop(monitor.loop) { monitor.apply(Self.fakeInterface) }
            #expect(monitor.currentPath(to: .host("203.0.113.77")) == Self.fakePath)
            try onLoop(monitor.loop) { monitor.resynchronize() }
            try heard.wait(for: 3)
            #expect(heard.all[2] == heard.all[0])
            #expect(monitor.currentPath(to: .host("203.0.113.77")) == heard.all[0])
            watch.cancel()
        }
    }

    @Test func loopbackAddressesAndNamesAreReachableOverLoopback() throws {
        try Self.withMonitor { monitor in
            #expect(monitor.currentPath(to: .host("127.0.0.1"))?.interface?.name == "lo")
            #expect(monitor.currentPath(to: .host("localhost")) == nil)
            let heard = Heard()
            let watch = monitor.watch(.host("localhost")) { heard.record($0) }
            try heard.wait(for: 1)
            #expect(heard.all.first?.interface?.name == "lo")
            #expect(heard.all.first?.interface?.kind == .other)
            #expect(monitor.currentPath(to: .host("localhost")) == heard.all.first)
            watch.cancel()
            #expect(monitor.currentPath(to: .host("localhost")) == nil)
        }
    }

    @Test func theDefaultRouteIsAnsweredAtOnce() throws {
        try Self.withMonitor { monitor in
            let heard = Heard()
            let watch = monitor.watch(.defaultRoute) { heard.record($0) }
            try heard.wait(for: 1)
            #expect(heard.all == [monitor.currentPath(to: .defaultRoute)])
            watch.cancel()
        }
    }

    @Test func aReleasedWatchIsCancelled() throws {
        try Self.withMonitor { monitor in
            do {
                _ = monitor.watch(.defaultRoute) { _ in }
            }
            #expect(monitor.state.withLock { $0.watches.isEmpty })
        }
    }

    @Test func aShutDownMonitorAnswersNothing() throws {
        try Self.withMonitor { monitor in
            monitor.shutdown()
            try onLoop(monitor.loop) {}
            let heard = Heard()
            let watch = monitor.watch(.defaultRoute) { heard.record($0) }
            try onLoop(monitor.loop) {}
            #expect(monitor.currentPath(to: .defaultRoute) == nil)
            #expect(heard.all.isEmpty)
            #expect(monitor.socket.fd == -1)
            watch.cancel()
        }
    }

    @Test func theSharedMonitorRuns() throws {
        let monitor = try NetworkMonitor.shared.get()
        #expect(monitor.loop.name == "fw-netmon")
        #expect(monitor.currentPath(to: .host("127.0.0.1"))?.interface?.name == "lo")
    }

    // MARK: Paths of watches

    static let view = NetworkViewPathsTests.view([route("10.0.0.0", 24)])

    @Test(arguments: [
        ("a name without an answer yet", nil, nil),
        ("a name whose lookup failed", .failure(.hostNotFound("x")), NetworkPath.unreachable),
        ("the first reachable address decides", .success([ip("192.0.2.1"), ip("10.0.0.9")]),
         view.path(to: ip("10.0.0.9"))),
        ("no reachable address", .success([ip("192.0.2.1")]), NetworkPath.unreachable),
        ("no address", .success([]), NetworkPath.unreachable),
    ] as [(String, Result<[IPAddress], ResolverError>?, NetworkPath?)])
    func pathOfAName(_ name: String, answer: Result<[IPAddress], ResolverError>?, expected: NetworkPath?) {
        #expect(NetworkMonitor.path(to: .host("example.org"), answer: answer, in: Self.view) == expected, "\(name)")
    }

    @Test func numericHostsAndTheDefaultRouteNeedNoAnswer() {
        #expect(NetworkMonitor.path(to: .host("10.0.0.9"), answer: nil, in: Self.view)?.interface?.name == "eth0")
        #expect(NetworkMonitor.path(to: .host("[2001:db8::1]"), answer: nil, in: Self.view) == .unreachable)
        #expect(NetworkMonitor.path(to: .defaultRoute, answer: nil, in: Self.view) == .unreachable)
    }
}
