import Dispatch
import FWLoop
import FWNetworkMonitor
import Foundation
@testable import FWNetworking
import Testing
import TestSupport

// NetworkReachabilityManager in the test's own network namespace (never changed here; the transitions run
// in namespaces of their own in IntegrationTests' NetworkNamespaceTests): the mapping of paths to statuses,
// the connection type from the interface's kind (a fake sysfs tree makes loopback a WWAN interface), the
// listener's first call, the notification, stopping, host names, and the default manager.
@Suite struct NetworkReachabilityManagerTests {
    typealias Status = NetworkReachabilityManager.NetworkReachabilityStatus

    @Test(arguments: [
        (nil, Status.unknown),
        (NetworkPath.unreachable, .notReachable),
        (NetworkPath(interface: NetworkInterface(index: 2, name: "eth0", kind: .other)), .reachable(.ethernetOrWiFi)),
        (NetworkPath(interface: NetworkInterface(index: 1, name: "lo", kind: .other)), .reachable(.ethernetOrWiFi)),
        (NetworkPath(interface: NetworkInterface(index: 3, name: "wwan0", kind: .wwan)), .reachable(.cellular)),
    ] as [(NetworkPath?, Status)])
    func statusOfAPath(_ path: NetworkPath?, status: Status) {
        #expect(Status(path) == status)
    }

    /// A monitor on a loop of its own, with `lo` a WWAN interface when `loopbackIsWWAN`; shut down after
    /// `body`.
    static func withMonitor<T>(loopbackIsWWAN: Bool, _ body: (NetworkMonitor) throws -> T) throws -> T {
        let root = NSTemporaryDirectory() + "/fw-reachability-sysfs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/lo", withIntermediateDirectories: true)
        if loopbackIsWWAN {
            try "DEVTYPE=wwan\n".write(toFile: root + "/lo/uevent", atomically: true, encoding: .utf8)
        }
        let loop = try EventLoop(name: "fw-reachability-test")
        defer {
            loop.shutdown()
            try? FileManager.default.removeItem(atPath: root)
        }
        let monitor = try NetworkMonitor(loop: loop, sysfsClassNet: root)
        defer { monitor.shutdown() }
        return try body(monitor)
    }

    @Test(arguments: [(false, Status.reachable(.ethernetOrWiFi)), (true, .reachable(.cellular))])
    func theConnectionTypeIsTheInterfacesKind(loopbackIsWWAN: Bool, status: Status) throws {
        try Self.withMonitor(loopbackIsWWAN: loopbackIsWWAN) { monitor in
            let manager = NetworkReachabilityManager(monitor: monitor, destination: .host("127.0.0.1"))
            #expect(manager.status == status)
            #expect(manager.isReachable)
            #expect(manager.isReachableOnCellular == loopbackIsWWAN)
            #expect(manager.isReachableOnEthernetOrWiFi == !loopbackIsWWAN)
        }
    }

    /// What a listener heard and the notifications posted, in order.
    final class Heard: Sendable {
        let statuses = LockedBox<[Status]>([])
        let notifications = LockedBox<[(object: AnyObject?, status: Status?)]>([])
    }

    @Test func theListenerHearsTheStatusOnItsQueueAndANotificationFollows() throws {
        try Self.withMonitor(loopbackIsWWAN: true) { monitor in
            let manager = NetworkReachabilityManager(monitor: monitor, destination: .host("127.0.0.1"))
            let heard = Heard()
            let queue = DispatchQueue(label: "listener")
            let observer = NotificationCenter.default.addObserver(
                forName: NetworkReachabilityManager.networkingReachabilityDidChangeNotification, object: manager,
                queue: nil
            ) { notification in
                let key = NetworkReachabilityManager.networkingReachabilityNotificationStatusItem
                let status = notification.userInfo?[key] as? Status
                heard.notifications.withLock { $0.append((notification.object as AnyObject?, status)) }
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            #expect(!manager.isListening)
            #expect(manager.startListening(onQueue: queue) { status in
                dispatchPrecondition(condition: .onQueue(queue))
                heard.statuses.withLock { $0.append(status) }
            })
            #expect(manager.isListening)
            #expect(waitUntil(timeout: 10) { heard.notifications.withLock { !$0.isEmpty } })
            queue.sync {}
            #expect(heard.statuses.withLock { $0 } == [.reachable(.cellular)])
            let notifications = heard.notifications.withLock { $0 }
            #expect(notifications.count == 1)
            #expect(notifications.first?.object === manager)
            #expect(notifications.first?.status == .reachable(.cellular))
            manager.stopListening()
            #expect(!manager.isListening)
        }
    }

    @Test func aHostNameIsUnknownUntilItsLookupAnswers() throws {
        try Self.withMonitor(loopbackIsWWAN: false) { monitor in
            let manager = NetworkReachabilityManager(monitor: monitor, destination: .host("localhost"))
            #expect(waitUntil(timeout: 10) { manager.status != .unknown })
            #expect(manager.status == .reachable(.ethernetOrWiFi))
        }
    }

    @Test func theDefaultManagerWatchesAnyNetwork() throws {
        let manager = try #require(NetworkReachabilityManager.default)
        let monitor = try NetworkMonitor.shared.get()
        #expect(manager.status == Status(monitor.currentPath(to: .defaultRoute)))
        #expect(NetworkReachabilityManager(host: "127.0.0.1")?.status == .reachable(.ethernetOrWiFi))
    }
}
