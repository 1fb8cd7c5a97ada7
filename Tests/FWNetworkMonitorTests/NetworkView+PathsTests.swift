// NetworkView+Paths: which interface a destination is reached over — longest prefix, metric, dead next
// hops, local routes over loopback, unreachable/prohibit/blackhole/throw routes, table order, source
// addresses — and the default destination's rules.

import Testing

import FWLoop
@testable import FWNetworkMonitor

@Suite struct NetworkViewPathsTests {
    /// lo (1, up), eth0 (2, up), wwan0 (3, up, WWAN), eth1 (4, down); with `addresses` (default: lo's
    /// 127.0.0.1 and ::1 of host scope, eth0's 10.0.0.2/24 and wwan0's 100.64.0.2/10) and `routes`.
    static func view(_ routes: [NetlinkRoute], addresses: [NetlinkAddress]? = nil,
                     loopbackUp: Bool = true) -> NetworkView {
        var view = NetworkView()
        let links = [link(1, "lo", flags: loopbackUp ? loopbackFlags : 0x8), link(2, "eth0", flags: upFlags),
                     link(3, "wwan0", flags: upFlags), link(4, "eth1", flags: downFlags)]
        let defaultAddresses = [address(1, "127.0.0.1", 8, scope: 254), address(1, "::1", 128, scope: 254),
                                address(2, "10.0.0.2", 24), address(3, "100.64.0.2", 10)]
        let messages = links.map(NetlinkMessage.link) + (addresses ?? defaultAddresses).map(NetlinkMessage.address)
            + routes.map { NetlinkMessage.route($0, replacing: false) }
        for message in messages {
            _ = view.apply(message, classify: { $0 == "wwan0" ? .wwan : .other })
        }
        return view
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        var view: NetworkView
        var destination: String
        var interface: String?
        var testDescription: String { name }
    }

    static let addressRows: [Row] = [
        Row(name: "the longest prefix wins",
            view: view([route("10.0.0.0", 8), route("10.0.1.0", 24, via: [3])]), destination: "10.0.1.5",
            interface: "wwan0"),
        Row(name: "the lowest metric wins among equal prefixes",
            view: view([route("10.0.0.0", 8, priority: 20), route("10.0.0.0", 8, priority: 10, via: [3])]),
            destination: "10.2.3.4", interface: "wwan0"),
        Row(name: "a route through an interface that is down is skipped",
            view: view([route("10.0.0.0", 8, priority: 1, via: [4]), route("10.0.0.0", 8, priority: 5)]),
            destination: "10.2.3.4", interface: "eth0"),
        Row(name: "a multipath route uses its first usable hop",
            view: view([route("10.0.0.0", 8, via: [4, 3, 2])]), destination: "10.2.3.4", interface: "wwan0"),
        Row(name: "a route through an unknown interface is skipped",
            view: view([route("10.0.0.0", 8, via: [9])]), destination: "10.2.3.4", interface: nil),
        Row(name: "a local route is reached over loopback",
            view: view([route("10.0.0.2", 32, table: 255, type: 2), route("10.0.0.0", 24)]),
            destination: "10.0.0.2", interface: "lo"),
        Row(name: "a local route is unreachable while loopback is down",
            view: view([route("10.0.0.2", 32, table: 255, type: 2), route("10.0.0.0", 24)], loopbackUp: false),
            destination: "10.0.0.2", interface: nil),
        Row(name: "an unreachable route decides before a shorter prefix",
            view: view([route("10.0.0.0", 8, type: 7, via: []), route("0.0.0.0", 0)]), destination: "10.2.3.4",
            interface: nil),
        Row(name: "a prohibit route decides unreachable",
            view: view([route("10.0.0.0", 8, type: 8, via: []), route("0.0.0.0", 0)]), destination: "10.2.3.4",
            interface: nil),
        Row(name: "a blackhole route decides unreachable",
            view: view([route("10.0.0.0", 8, type: 6, via: []), route("0.0.0.0", 0)]), destination: "10.2.3.4",
            interface: nil),
        Row(name: "a throw route moves on to the next table",
            view: view([route("10.0.0.0", 8, type: 9, via: []), route("10.0.0.0", 8, table: 253, via: [3])]),
            destination: "10.2.3.4", interface: "wwan0"),
        Row(name: "a table of its own (policy routing) is not searched",
            view: view([route("10.0.0.0", 8, table: 100)]), destination: "10.2.3.4", interface: nil),
        Row(name: "no route is unreachable", view: view([]), destination: "10.2.3.4", interface: nil),
        Row(name: "without a source address of the family a route is unusable",
            view: view([route("::", 0)]), destination: "2001:db8::1", interface: nil),
        Row(name: "a link-local address is a source",
            view: view([route("::", 0)], addresses: [address(2, "fe80::1", 64, scope: 253)]),
            destination: "2001:db8::1", interface: "eth0"),
        Row(name: "a host-scope address is no source",
            view: view([route("0.0.0.0", 0)], addresses: [address(1, "127.0.0.1", 8, scope: 254)]),
            destination: "192.0.2.1", interface: nil),
        Row(name: "a source on an interface that is down does not count",
            view: view([route("0.0.0.0", 0)], addresses: [address(4, "10.4.0.2", 24)]),
            destination: "192.0.2.1", interface: nil),
    ]

    @Test(arguments: addressRows)
    func pathToAnAddress(_ row: Row) {
        #expect(row.view.path(to: ip(row.destination)).interface?.name == row.interface)
    }

    static let defaultRows: [Row] = [
        Row(name: "an IPv4 default route", view: view([route("0.0.0.0", 0)]), destination: "", interface: "eth0"),
        Row(name: "the lowest metric wins",
            view: view([route("0.0.0.0", 0, priority: 100), route("0.0.0.0", 0, priority: 50, via: [3])]),
            destination: "", interface: "wwan0"),
        Row(name: "a default route through an interface that is down is skipped",
            view: view([route("0.0.0.0", 0, priority: 1, via: [4]), route("0.0.0.0", 0, priority: 100)]),
            destination: "", interface: "eth0"),
        Row(name: "IPv4 before IPv6",
            view: view([route("::", 0, priority: 1, via: [3]), route("0.0.0.0", 0, priority: 100)],
                       addresses: [address(2, "10.0.0.2", 24), address(3, "2001:db8::2", 64)]),
            destination: "", interface: "eth0"),
        Row(name: "IPv6 when IPv4 has no default route",
            view: view([route("::", 0, via: [3])], addresses: [address(3, "2001:db8::2", 64)]),
            destination: "", interface: "wwan0"),
        Row(name: "an unreachable default route ends the family's search",
            view: view([route("0.0.0.0", 0, type: 7, priority: 1, via: []), route("0.0.0.0", 0, priority: 100)]),
            destination: "", interface: nil),
        Row(name: "loopback is no way out", view: view([route("0.0.0.0", 0, via: [1])]), destination: "",
            interface: nil),
        Row(name: "the default table after main", view: view([route("0.0.0.0", 0, table: 253, via: [3])]),
            destination: "", interface: "wwan0"),
        Row(name: "a route to a subnet is no default route", view: view([route("10.0.0.0", 24)]), destination: "",
            interface: nil),
    ]

    @Test(arguments: defaultRows)
    func pathToAnyNetwork(_ row: Row) {
        #expect(row.view.defaultPath().interface?.name == row.interface)
    }

    // An interface other than loopback up with an address counts, routes or not; loopback's own addresses
    // (host scope) and a down interface's do not.
    @Test func anInterfaceIsUpWhenOneButLoopbackHasAnAddress() {
        #expect(Self.view([]).hasUsableInterface)
        let loopbackOnly = [address(1, "127.0.0.1", 8, scope: 254), address(1, "::1", 128, scope: 254)]
        #expect(!Self.view([], addresses: loopbackOnly).hasUsableInterface)
        #expect(!Self.view([], addresses: loopbackOnly + [address(4, "10.9.0.2", 24)]).hasUsableInterface)
        #expect(Self.view([], addresses: [address(3, "fe80::2", 64, scope: 253)]).hasUsableInterface)
    }

    @Test func thePathNamesTheInterfaceAndItsKind() {
        let path = Self.view([route("0.0.0.0", 0, via: [3])]).defaultPath()
        #expect(path == NetworkPath(interface: NetworkInterface(index: 3, name: "wwan0", kind: .wwan)))
    }
}
