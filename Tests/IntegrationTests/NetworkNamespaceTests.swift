// Reachability and waitsForConnectivity for real, in network namespaces the tests create: ReachabilityProbe
// runs under `unshare --net --mount` (a namespace with only a loopback interface, which is down, and a
// mount namespace of its own), and the test changes that namespace from outside with `nsenter` — an
// interface (`dummy`, or `ifb` where the kernel has no dummy driver) brought up and down, addresses, default
// routes added and removed, a WWAN interface faked by bind-mounting a `uevent` with `DEVTYPE=wwan` over the
// real sysfs one — and asserts the lines the probe prints, in order. Skipped where the kernel refuses
// namespaces.

import Foundation
import Testing
import TestSupport

@Suite(.enabled(if: NamespacedProbe.isSupported,
                "needs root, network and mount namespaces (unshare --net --mount), iproute2 and a dummy or ifb link"))
struct NetworkNamespaceTests {
    /// One step: commands run in the namespace, then the lines it makes each listener print.
    struct Step: CustomTestStringConvertible {
        var name: String
        var commands: [String]
        var defaultRoute: [String] = []
        var host: [String] = []
        var testDescription: String { name }
    }

    /// What the listeners of `NetworkReachabilityManager()` and `(host: "10.1.0.9")` hear, step by step.
    static let steps: [Step] = [
        Step(name: "a namespace with nothing up", commands: [],
             defaultRoute: ["notReachable"], host: ["notReachable"]),
        Step(name: "fw0 up with 10.1.0.2/24: a route to the host's subnet, none to the rest",
             commands: ["mount -t sysfs sysfs /sys", NamespacedProbe.addLink("fw0"), "ip link set fw0 up",
                        "ip addr add 10.1.0.2/24 dev fw0"],
             host: ["reachable(ethernetOrWiFi)"]),
        Step(name: "default route added", commands: ["ip route add default via 10.1.0.1"],
             defaultRoute: ["reachable(ethernetOrWiFi)"]),
        Step(name: "default route removed", commands: ["ip route del default"],
             defaultRoute: ["notReachable"]),
        Step(name: "default route added again", commands: ["ip route add default via 10.1.0.1 metric 5"],
             defaultRoute: ["reachable(ethernetOrWiFi)"]),
        Step(name: "fw0 down: the kernel drops its routes without a message", commands: ["ip link set fw0 down"],
             defaultRoute: ["notReachable"], host: ["notReachable"]),
        Step(name: "a WWAN interface fw1 with the default route",
             commands: [NamespacedProbe.addLink("fw1"),
                        "mount --bind \(NamespacedProbe.wwanUevent) /sys/class/net/fw1/uevent",
                        "ip link set fw1 up", "ip addr add 10.2.0.2/24 dev fw1",
                        "ip route add default via 10.2.0.1"],
             defaultRoute: ["reachable(cellular)"], host: ["reachable(cellular)"]),
        Step(name: "the WWAN default route removed", commands: ["ip route del default"],
             defaultRoute: ["notReachable"], host: ["notReachable"]),
    ]

    @Test func reachabilityFollowsLinksAddressesAndDefaultRoutes() throws {
        let probe = try NamespacedProbe(["reachability", "10.1.0.9"])
        var expected = ["default": [String](), "host": []]
        for step in Self.steps {
            try probe.run(step.commands)
            expected["default", default: []] += step.defaultRoute
            expected["host", default: []] += step.host
            let reached = waitUntil(timeout: 20) {
                probe.statuses("default").count >= expected["default", default: []].count
                    && probe.statuses("host").count >= expected["host", default: []].count
            }
            #expect(reached, "after \(step.name): \(probe.output)")
            #expect(probe.statuses("default") == expected["default"], "after \(step.name)")
            #expect(probe.statuses("host") == expected["host"], "after \(step.name)")
        }
    }

    @Test func tasksWaitForARouteOnlyWhenTheSessionWaitsForConnectivity() throws {
        let probe = try NamespacedProbe(["waits"])
        let expectedBeforeRoute = [
            "nowait error=-1009 messages=0", "nowait-name error=-1009 messages=0", "waiting",
            "timeout error=-1009 messages=1", "waiting",
        ]
        let waiting = waitUntil(timeout: 60) { probe.lines.count >= expectedBeforeRoute.count }
        #expect(waiting, "\(probe.output)")
        #expect(probe.lines == expectedBeforeRoute)
        try probe.run(["ip link set lo up"])
        let finished = waitUntil(timeout: 60) { probe.lines.count >= expectedBeforeRoute.count + 2 }
        #expect(finished, "\(probe.output)")
        #expect(probe.lines == expectedBeforeRoute + ["waited status=200 body=hello messages=1", "requests=1"])
    }
}

// MARK: - NamespacedProbe

/// ReachabilityProbe running in a network and mount namespace of its own, and commands run inside them.
final class NamespacedProbe {
    /// Whether `unshare --net --mount` works here and a dummy or ifb link can be made in the namespace.
    static let isSupported: Bool = {
        guard getuid() == 0 else { return false }
        let check = NamespacedProbe.shell(["unshare", "--net", "--mount", "sh", "-c", addLink("fwcheck0")])
        return check == 0
    }()

    /// A `uevent` that says the interface is a WWAN device.
    static let wwanUevent: String = {
        let path = NSTemporaryDirectory() + "/fwnetworking-wwan-uevent"
        try? "INTERFACE=fw1\nDEVTYPE=wwan\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    /// The shell command that makes interface `name`: a dummy link, else an ifb link.
    static func addLink(_ name: String) -> String {
        "ip link add \(name) type dummy 2>/dev/null || ip link add \(name) type ifb"
    }

    private let process: SpawnedProcess

    /// Starts the probe with `arguments` in new namespaces.
    init(_ arguments: [String]) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ReachabilityProbe").path
        let log = NSTemporaryDirectory() + "/reachability-probe-\(UUID().uuidString).log"
        process = try SpawnedProcess.spawn(["unshare", "--net", "--mount", binary] + arguments, logPath: log)
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(atPath: process.logPath)
    }

    /// Runs each command with `sh -c` in the probe's namespaces; throws when one fails.
    func run(_ commands: [String]) throws {
        for command in commands {
            let status = Self.shell(["nsenter", "--target", "\(process.pid)", "--net", "--mount", "sh", "-c", command])
            guard status == 0 else {
                throw TestSupportError.serverUnavailable("`\(command)` in the namespace exited with \(status)")
            }
        }
    }

    /// Everything the probe printed so far.
    var output: String { process.log }

    /// The lines the probe printed so far.
    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The statuses the listener `label` (`default` or `host`) heard, in order.
    func statuses(_ label: String) -> [String] {
        lines.compactMap { line in line.hasPrefix(label + " ") ? String(line.dropFirst(label.count + 1)) : nil }
    }

    /// Runs `arguments` and returns its exit status (its output goes to the test's).
    private static func shell(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            return -1
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
