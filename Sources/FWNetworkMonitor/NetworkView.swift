// NetworkView: the network-change monitor's picture of the host — interfaces, their addresses and the
// routes of every table — kept current by applying the kernel's route-netlink messages in order. A value
// type with no I/O: the monitor owns one (under its lock) and asks it for paths
// (NetworkView+Paths.swift); tests build them from messages.
//
// Applying is idempotent (adding what is there, or removing what is not, changes nothing), so a dump and
// the notifications that raced it can be applied in any overlap; each message costs a dictionary lookup, so
// a dump of a large table stays linear. Only the tables the path rules search (local, main, default) are
// kept. Two kernel behaviours are mirrored because the kernel sends no message for them: when an interface
// is set down (IFF_UP cleared), it drops the IPv4 routes through it except the local ones of its addresses;
// when an interface is removed, it drops its addresses and routes.

import CFWNetlink
import FWLoop

/// Interfaces, addresses and routes, as the kernel reported them.
struct NetworkView: Equatable, Sendable {
    /// An interface and what kind of network it connects to.
    struct Link: Equatable, Sendable {
        var link: NetlinkLink
        var kind: NetworkInterface.Kind
    }

    /// What identifies an address of an interface.
    private struct AddressKey: Hashable, Sendable {
        var index: Int32
        var address: IPAddress
    }

    /// The interfaces by index.
    private(set) var links: [Int32: Link] = [:]
    /// The addresses of every interface.
    private var addressTable: [AddressKey: NetlinkAddress] = [:]
    /// The routes of the tables searched, by key; routes of one key in the order they were learnt.
    private var routeTable: [NetlinkRoute.Key: [NetlinkRoute]] = [:]

    /// The tables whose routes are kept: local, main and default (NetworkView+Paths.swift searches no other).
    static let keptTables: Set<UInt32> = [FW_RT_TABLE_LOCAL, FW_RT_TABLE_MAIN, FW_RT_TABLE_DEFAULT]

    /// The addresses of every interface, in no particular order.
    var addresses: [NetlinkAddress] {
        Array(addressTable.values)
    }

    /// The routes of the tables searched; those of one key in the order they were learnt.
    var routes: [NetlinkRoute] {
        routeTable.values.flatMap { $0 }
    }

    /// Applies one message; true when the view changed. `classify` names the kind of an interface from its
    /// name; it is asked for every link message (an interface's attributes may change while it exists).
    mutating func apply(_ message: NetlinkMessage, classify: (String) -> NetworkInterface.Kind) -> Bool {
        switch message {
        case .link(let link):
            return applyLink(link, kind: classify(link.name))
        case .linkRemoved(let index):
            return removeLink(index)
        case .address(let address):
            return addressTable.updateValue(address, forKey: key(address)) != address
        case .addressRemoved(let address):
            return addressTable.removeValue(forKey: key(address)) != nil
        case .route(let route, let replacing):
            return addRoute(route, replacing: replacing)
        case .routeRemoved(let route):
            return removeRoute(route)
        case .done, .error:
            return false
        }
    }

    // MARK: Links

    private mutating func applyLink(_ link: NetlinkLink, kind: NetworkInterface.Kind) -> Bool {
        let old = links.updateValue(Link(link: link, kind: kind), forKey: link.index)
        guard old != Link(link: link, kind: kind) else {
            return false
        }
        if let old, old.link.flags & FW_IFF_UP != 0, link.flags & FW_IFF_UP == 0 {
            _ = removeRoutes { $0.type != FW_RTN_LOCAL && $0.isOnlyThrough(link.index) }
        }
        return true
    }

    private mutating func removeLink(_ index: Int32) -> Bool {
        let hadLink = links.removeValue(forKey: index) != nil
        let addressCount = addressTable.count
        addressTable = addressTable.filter { $0.key.index != index }
        let removedRoutes = removeRoutes { $0.isOnlyThrough(index) }
        return hadLink || addressTable.count != addressCount || removedRoutes
    }

    // MARK: Routes

    private mutating func addRoute(_ route: NetlinkRoute, replacing: Bool) -> Bool {
        guard Self.keptTables.contains(route.table) else {
            return false
        }
        let bucket = routeTable[route.key] ?? []
        if replacing {
            routeTable[route.key] = [route]
            return bucket != [route]
        }
        guard !bucket.contains(route) else {
            return false
        }
        routeTable[route.key] = bucket + [route]
        return true
    }

    /// Removes `route`, or when no route is exactly it, the first of its key (a deletion message may not
    /// repeat every attribute).
    private mutating func removeRoute(_ route: NetlinkRoute) -> Bool {
        guard var bucket = routeTable[route.key], !bucket.isEmpty else {
            return false
        }
        bucket.remove(at: bucket.firstIndex(of: route) ?? 0)
        routeTable[route.key] = bucket.isEmpty ? nil : bucket
        return true
    }

    /// Removes every route `shouldRemove` picks; true when there was one.
    private mutating func removeRoutes(where shouldRemove: (NetlinkRoute) -> Bool) -> Bool {
        var removed = false
        for (key, bucket) in routeTable {
            let kept = bucket.filter { !shouldRemove($0) }
            guard kept.count != bucket.count else { continue }
            routeTable[key] = kept.isEmpty ? nil : kept
            removed = true
        }
        return removed
    }

    private func key(_ address: NetlinkAddress) -> AddressKey {
        AddressKey(index: address.index, address: address.address)
    }
}
