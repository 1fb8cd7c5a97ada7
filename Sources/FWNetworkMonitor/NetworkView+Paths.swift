// NetworkView+Paths: which interface traffic to a destination would leave through, decided from the view
// the way the kernel's default policy decides it (no I/O).
//
// To an address: the tables local (255), main (254) and default (253) are searched in that order, as the
// default `ip rule` set does. In a table the routes whose prefix holds the address are tried longest prefix
// first, then lowest metric: a unicast (or broadcast, anycast, multicast) route decides when one of its
// interfaces is usable, else the next route is tried (the kernel skips dead next hops too); a local route
// (one of the host's own addresses) decides "reachable over loopback" when the loopback interface is up;
// an unreachable, prohibit or blackhole route decides "unreachable"; a throw route moves on to the next
// table. No route at all is "unreachable".
//
// To the default destination: the default routes (prefix length 0) of the main, then the default table,
// IPv4 first, then IPv6, lowest metric first; the first usable one decides, an unreachable, prohibit or
// blackhole one ends that family's search. Loopback does not count as a way out.
//
// Usable interface: known, up (IFF_UP and IFF_RUNNING), and the host has a source address of the
// destination's family (scope wider than host) on an interface that is up — without one, packets would
// leave with an unanswerable source address.

import CFWNetlink
import FWLoop

extension NetworkView {
    /// The tables searched for an address, in order.
    private static let addressTables: [UInt32] = [FW_RT_TABLE_LOCAL, FW_RT_TABLE_MAIN, FW_RT_TABLE_DEFAULT]
    /// The tables searched for the default destination, in order.
    private static let defaultTables: [UInt32] = [FW_RT_TABLE_MAIN, FW_RT_TABLE_DEFAULT]

    /// The path to `address`.
    func path(to address: IPAddress) -> NetworkPath {
        let candidates = routes.filter { address.matches($0.destination, prefixLength: $0.prefixLength) }
        for table in Self.addressTables {
            let ordered = candidates.filter { $0.table == table }
                .sorted { ($1.prefixLength, $0.priority, $0.tos) < ($0.prefixLength, $1.priority, $1.tos) }
            if let decision = decide(ordered, family: address.family, allowLoopback: true) {
                return decision
            }
        }
        return .unreachable
    }

    /// The path to any network: the first usable default route, IPv4 before IPv6.
    func defaultPath() -> NetworkPath {
        let defaults = routes.filter { $0.prefixLength == 0 }
        for family in [SocketAddress.Family.ipv4, .ipv6] {
            let ordered = Self.defaultTables.flatMap { table in
                defaults.filter { $0.table == table && $0.destination.family == family }
                    .sorted { ($0.priority, $0.tos) < ($1.priority, $1.tos) }
            }
            if let decision = decide(ordered, family: family, allowLoopback: false), decision.isReachable {
                return decision
            }
        }
        return .unreachable
    }

    /// What the first deciding route of `routes` (in order) says; nil when none decides.
    private func decide(_ routes: [NetlinkRoute], family: SocketAddress.Family, allowLoopback: Bool) -> NetworkPath? {
        let hasSource = hasSourceAddress(family)
        for route in routes {
            switch route.type {
            case FW_RTN_UNICAST, FW_RTN_BROADCAST, FW_RTN_ANYCAST, FW_RTN_MULTICAST:
                let usable = route.interfaces.lazy.compactMap { links[$0] }.first {
                    $0.link.isUp && hasSource && (allowLoopback || !$0.link.isLoopback)
                }
                if let usable {
                    return NetworkPath(interface: usable.interface)
                }
            case FW_RTN_LOCAL where allowLoopback:
                let loopback = links.values.first { $0.link.isLoopback && $0.link.isUp }
                return NetworkPath(interface: loopback?.interface)
            case FW_RTN_UNREACHABLE, FW_RTN_PROHIBIT, FW_RTN_BLACKHOLE:
                return .unreachable
            case FW_RTN_THROW:
                return nil
            default:
                continue
            }
        }
        return nil
    }

    /// True when an interface that is up has an address of `family` that can be a packet's source.
    /// Whether an interface other than loopback is up with an address packets could leave with (of a scope
    /// wider than host: loopback's own addresses are of host scope), whatever the routes.
    var hasUsableInterface: Bool {
        hasSourceAddress(.ipv4) || hasSourceAddress(.ipv6)
    }

    private func hasSourceAddress(_ family: SocketAddress.Family) -> Bool {
        addresses.contains { address in
            address.address.family == family && address.isUsableSource && links[address.index]?.link.isUp == true
        }
    }
}

extension NetworkView.Link {
    /// The public description of the interface.
    var interface: NetworkInterface {
        NetworkInterface(index: link.index, name: link.name, kind: kind)
    }
}
