// NetworkReachabilityManager: whether the network, or one host, can be reached now, and over what kind of
// interface — in the shape of Alamofire's `NetworkReachabilityManager`, which FWFramework's Swift port
// shares. On Linux it stands on FWNetworkMonitor's `NetworkMonitor` (one route-netlink socket for the process, on an
// event loop of its own; no polling), where SystemConfiguration's `SCNetworkReachability` stands on Apple
// platforms.
//
// Reachable means a usable route: to the host's addresses for `init?(host:)`, to any network (a default
// route) for `init?()`; the rules are in FWNetworkMonitor's NetworkView+Paths.swift. The connection type comes from
// the interface the route leaves through: a WWAN interface (`/sys/class/net/IF/uevent` has `DEVTYPE=wwan`,
// or its device's driver is `cdc_mbim` or `qmi_wwan`) is `.cellular`; everything else (Ethernet, Wi-Fi,
// loopback, bridges, tunnels) is `.ethernetOrWiFi`.

import Dispatch
import FWLoop
import FWNetworkMonitor
import Foundation

/// Listens for changes of whether the network (or one host) is reachable, and over Ethernet/Wi-Fi or a
/// cellular (WWAN) interface. Thread-safe.
///
/// `@unchecked Sendable` (an open class cannot be checked): its mutable state is in `state`, a `LockedBox`;
/// everything else is immutable.
open class NetworkReachabilityManager: @unchecked Sendable { // mutable state: `state` (LockedBox)
    /// Whether the destination can be reached, and how.
    public enum NetworkReachabilityStatus: Equatable, Sendable {
        /// Not known yet: a host name whose first lookup has not finished, or no monitor.
        case unknown
        /// No usable route.
        case notReachable
        /// A usable route over an interface of this type.
        case reachable(ConnectionType)

        /// The kind of interface a reachable destination is reached over.
        public enum ConnectionType: Sendable {
            /// Any interface that is not a cellular modem: Ethernet, Wi-Fi, loopback, virtual devices.
            case ethernetOrWiFi
            /// A WWAN (cellular modem) interface.
            case cellular
        }

        /// The status a monitor's path means (nil: unknown).
        init(_ path: NetworkPath?) {
            guard let path else {
                self = .unknown
                return
            }
            switch path.interface?.kind {
            case nil:
                self = .notReachable
            case .wwan?:
                self = .reachable(.cellular)
            default:
                self = .reachable(.ethernetOrWiFi)
            }
        }
    }

    /// Called with each new status.
    public typealias Listener = @Sendable (NetworkReachabilityStatus) -> Void

    /// The manager of the default destination (any network), or nil when the process has no network
    /// monitor (no netlink socket could be opened).
    public static let `default` = NetworkReachabilityManager()

    /// Posted on the listener's queue after the listener ran, whenever the status of a listening manager
    /// changes; the object is the manager, `userInfo[networkingReachabilityNotificationStatusItem]` the new
    /// `NetworkReachabilityStatus`.
    public static let networkingReachabilityDidChangeNotification =
        Notification.Name("site.wuyong.networking.reachability.change")
    /// The `userInfo` key of the status in `networkingReachabilityDidChangeNotification`.
    public static let networkingReachabilityNotificationStatusItem = "site.wuyong.networking.reachability.status"

    // MARK: State

    /// What changes while the manager lives.
    private struct MutableState {
        var listener: Listener?
        var listenerQueue: DispatchQueue?
        var previousStatus: NetworkReachabilityStatus?
        /// The manager's watch of its destination, held for its whole life (it keeps a host name resolved,
        /// so `status` can answer).
        var watch: NetworkWatch?
    }

    /// The queue status changes are worked out on before they go to the listener's queue.
    public let reachabilityQueue = DispatchQueue(label: "fwnetworking.reachability")
    private let monitor: NetworkMonitor
    private let destination: NetworkDestination
    private let state = LockedBox(MutableState())

    // MARK: Creation

    /// A manager of `host` (a name or a numeric address); nil when the process has no network monitor.
    public convenience init?(host: String) {
        guard let monitor = try? NetworkMonitor.shared.get() else { return nil }
        self.init(monitor: monitor, destination: .host(host))
    }

    /// A manager of any network (a default route, like the zero address on Apple platforms); nil when the
    /// process has no network monitor.
    public convenience init?() {
        guard let monitor = try? NetworkMonitor.shared.get() else { return nil }
        self.init(monitor: monitor, destination: .defaultRoute)
    }

    /// A manager of `destination` on `monitor`.
    init(monitor: NetworkMonitor, destination: NetworkDestination) {
        self.monitor = monitor
        self.destination = destination
        let watch = monitor.watch(destination) { [weak self] path in
            guard let self else { return }
            reachabilityQueue.async { self.notifyListener(NetworkReachabilityStatus(path)) }
        }
        state.withLock { $0.watch = watch }
    }

    deinit {
        state.withLock { $0.watch }?.cancel()
    }

    // MARK: Status

    /// The status now (see `NetworkReachabilityStatus`).
    open var status: NetworkReachabilityStatus {
        NetworkReachabilityStatus(monitor.currentPath(to: destination))
    }

    /// Whether the destination is reachable now, over any interface.
    open var isReachable: Bool {
        isReachableOnCellular || isReachableOnEthernetOrWiFi
    }

    /// Whether the destination is reachable now over a cellular (WWAN) interface.
    open var isReachableOnCellular: Bool {
        status == .reachable(.cellular)
    }

    /// Whether the destination is reachable now over an interface that is not a cellular modem.
    open var isReachableOnEthernetOrWiFi: Bool {
        status == .reachable(.ethernetOrWiFi)
    }

    /// Whether a listener is installed (FWFramework addition).
    open var isListening: Bool {
        state.withLock { $0.listener != nil }
    }

    // MARK: Listening

    /// Starts calling `listener` on `queue` (the main queue by default) with the current status and then
    /// with every change, replacing any earlier listener. Returns true: the monitor behind the manager is
    /// already running.
    @discardableResult
    open func startListening(onQueue queue: DispatchQueue = .main,
                             onUpdatePerforming listener: @escaping Listener) -> Bool {
        stopListening()
        state.withLock { state in
            state.listenerQueue = queue
            state.listener = listener
        }
        reachabilityQueue.async { [self] in
            let current = status
            if current != .unknown {
                notifyListener(current)
            }
        }
        return true
    }

    /// Stops calling the listener. A call already queued on the listener's queue may still run.
    open func stopListening() {
        state.withLock { state in
            state.listener = nil
            state.listenerQueue = nil
            state.previousStatus = nil
        }
    }

    /// Hands a new status to the listener (reachability queue), unless it is the one it had last.
    private func notifyListener(_ status: NetworkReachabilityStatus) {
        let delivery = state.withLock { state -> (Listener, DispatchQueue)? in
            guard let listener = state.listener, let queue = state.listenerQueue,
                  state.previousStatus != status else { return nil }
            state.previousStatus = status
            return (listener, queue)
        }
        guard let (listener, queue) = delivery else { return }
        queue.async { [self] in
            listener(status)
            NotificationCenter.default.post(name: Self.networkingReachabilityDidChangeNotification, object: self,
                                            userInfo: [Self.networkingReachabilityNotificationStatusItem: status])
        }
    }
}
