// The public vocabulary of the network-change monitor: where a caller wants to go (NetworkDestination),
// the interface traffic would leave through (NetworkInterface) and the answer (NetworkPath).

import FWLoop

// MARK: - NetworkInterface

/// A network interface the monitor routes through.
public struct NetworkInterface: Hashable, Sendable, CustomStringConvertible {
    /// What kind of network an interface connects to, as its sysfs attributes say.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// A wireless WAN (cellular modem): `/sys/class/net/IF/uevent` has `DEVTYPE=wwan`, or the driver
        /// of `/sys/class/net/IF/device` is `cdc_mbim` or `qmi_wwan`.
        public static let wwan = Kind(name: "wwan")
        /// Any other interface: Ethernet, Wi-Fi, loopback, bridges, tunnels, virtual devices.
        public static let other = Kind(name: "other")

        /// `wwan` or `other`.
        public var description: String {
            name
        }
    }

    /// The kernel's interface index.
    public let index: Int32
    /// The interface name, e.g. `eth0` or `wwan0`.
    public let name: String
    /// What kind of network the interface connects to.
    public let kind: Kind

    /// Creates a description of an interface.
    public init(index: Int32, name: String, kind: Kind) {
        self.index = index
        self.name = name
        self.kind = kind
    }

    /// `eth0 (2, other)`.
    public var description: String {
        "\(name) (\(index), \(kind))"
    }
}

// MARK: - NetworkPath

/// Whether traffic to a destination has a usable route now, and over which interface.
public struct NetworkPath: Hashable, Sendable, CustomStringConvertible {
    /// The interface traffic would leave through; nil when there is no usable route.
    public let interface: NetworkInterface?

    /// No usable route.
    public static let unreachable = NetworkPath(interface: nil)

    /// A path over `interface` (nil: no usable route).
    public init(interface: NetworkInterface?) {
        self.interface = interface
    }

    /// True when there is a usable route.
    public var isReachable: Bool {
        interface != nil
    }

    /// `reachable over eth0 (2, other)` or `unreachable`.
    public var description: String {
        interface.map { "reachable over \($0)" } ?? "unreachable"
    }
}

// MARK: - NetworkDestination

/// Where a caller wants to go: any network (the default route), or one host.
public struct NetworkDestination: Hashable, Sendable, CustomStringConvertible {
    enum Target: Hashable, Sendable {
        case defaultRoute
        case host(String)
    }

    let target: Target

    /// Any network: reachable when a default route (IPv4 first, else IPv6) leaves through an interface that
    /// is up, as `SCNetworkReachabilityCreateWithAddress` with the zero address is on Apple platforms.
    public static let defaultRoute = NetworkDestination(target: .defaultRoute)

    /// A host name or numeric address (an IPv6 literal may be in brackets): reachable when one of its
    /// addresses has a usable route. A name is resolved off the event loop.
    public static func host(_ host: String) -> NetworkDestination {
        NetworkDestination(target: .host(host))
    }

    /// The numeric address of a `host` destination given as a literal; nil for names and the default route.
    var numericAddress: IPAddress? {
        guard case .host(let host) = target, let address = Resolver.numericAddress(host, port: 0) else {
            return nil
        }
        return IPAddress(address)
    }

    /// `default route` or `host example.org`.
    public var description: String {
        switch target {
        case .defaultRoute:
            return "default route"
        case .host(let host):
            return "host \(host)"
        }
    }
}
