// What the network-change monitor reads from a NETLINK_ROUTE socket, as values (NetlinkParser.swift turns
// datagrams into these; NetworkView.swift applies them).

import CFWNetlink
import FWLoop

// MARK: - Objects

/// A network interface as an `RTM_NEWLINK` message describes it.
struct NetlinkLink: Hashable, Sendable {
    /// The kernel's interface index.
    var index: Int32
    /// The interface name (`IFLA_IFNAME`), e.g. `eth0`.
    var name: String
    /// The `IFF_*` flags.
    var flags: UInt32

    /// Administratively up (`IFF_UP`) and operational (`IFF_RUNNING`: carrier, or a device that does not
    /// report one).
    var isUp: Bool {
        flags & FW_IFF_UP != 0 && flags & FW_IFF_RUNNING != 0
    }

    /// The loopback interface (`IFF_LOOPBACK`).
    var isLoopback: Bool {
        flags & FW_IFF_LOOPBACK != 0
    }
}

/// An address of an interface, from `RTM_NEWADDR` / `RTM_DELADDR`.
struct NetlinkAddress: Hashable, Sendable {
    /// The interface index.
    var index: Int32
    /// The local address (`IFA_LOCAL`, else `IFA_ADDRESS`).
    var address: IPAddress
    /// The prefix length of the address's subnet.
    var prefixLength: Int
    /// The `RT_SCOPE_*` scope: 0 global, 200 site, 253 link, 254 host (loopback).
    var scope: UInt8

    /// The address can be the source of a packet that leaves the host (its scope is wider than host).
    var isUsableSource: Bool {
        scope < Self.hostScope
    }

    /// `RT_SCOPE_HOST`.
    static let hostScope: UInt8 = 254
}

/// A route, from `RTM_NEWROUTE` / `RTM_DELROUTE`.
struct NetlinkRoute: Hashable, Sendable {
    /// The routing table (`RTA_TABLE` when present, else `rtm_table`).
    var table: UInt32
    /// The `RTN_*` type: unicast, local, unreachable, ...
    var type: UInt8
    /// The destination prefix (all zeros for a default route).
    var destination: IPAddress
    /// The prefix length; 0 for a default route.
    var prefixLength: Int
    /// The type of service the route is for (IPv4; 0 for any).
    var tos: UInt8
    /// The metric (`RTA_PRIORITY`); lower wins among routes of one prefix.
    var priority: UInt32
    /// The outgoing interfaces: `RTA_OIF`, or each hop of `RTA_MULTIPATH`.
    var interfaces: [Int32]
    /// The next hop's address (`RTA_GATEWAY`), if any.
    var gateway: IPAddress?

    /// True when every next hop leaves through interface `index` (and there is at least one).
    func isOnlyThrough(_ index: Int32) -> Bool {
        !interfaces.isEmpty && interfaces.allSatisfy { $0 == index }
    }

    /// What identifies a route for replacement and for a deletion that does not repeat it exactly.
    var key: Key {
        Key(table: table, destination: destination, prefixLength: prefixLength, tos: tos, priority: priority)
    }

    /// Table, destination prefix, type of service and metric.
    struct Key: Hashable, Sendable {
        var table: UInt32
        var destination: IPAddress
        var prefixLength: Int
        var tos: UInt8
        var priority: UInt32
    }
}

// MARK: - Messages

/// One decoded netlink message that matters to the monitor.
enum NetlinkMessage: Hashable, Sendable {
    /// An interface appeared or changed.
    case link(NetlinkLink)
    /// The interface with this index is gone.
    case linkRemoved(index: Int32)
    /// An address was added (or changed).
    case address(NetlinkAddress)
    /// An address was removed.
    case addressRemoved(NetlinkAddress)
    /// A route was added; `replacing` when it replaces the routes of its key (`NLM_F_REPLACE`).
    case route(NetlinkRoute, replacing: Bool)
    /// A route was removed.
    case routeRemoved(NetlinkRoute)
    /// A dump answering request `sequence` is complete.
    case done(sequence: UInt32)
    /// The answer to request `sequence`: 0 acknowledges it, else the (positive) errno it failed with.
    case error(sequence: UInt32, errno: Int32)
}
