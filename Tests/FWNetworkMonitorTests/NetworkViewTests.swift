// NetworkView: applying messages — idempotence, replacement, removal by key, the kernel's silent drops on
// link down and link removal — and the captured sequence of Fixtures/netlink applied in order.

import Testing

import FWLoop
@testable import FWNetworkMonitor

@Suite struct NetworkViewTests {
    /// Classifies nothing as WWAN.
    static let other: @Sendable (String) -> NetworkInterface.Kind = { _ in .other }

    /// A view built from `messages`.
    static func view(_ messages: [NetlinkMessage]) -> NetworkView {
        var view = NetworkView()
        for message in messages {
            _ = view.apply(message, classify: other)
        }
        return view
    }

    static let fw0Up: [NetlinkMessage] = [
        .link(link(1, "lo", flags: loopbackFlags)),
        .link(link(2, "fw0", flags: upFlags)),
        .address(address(1, "127.0.0.1", 8, scope: 254)),
        .address(address(2, "10.1.0.2", 24)),
        .route(route("127.0.0.1", 32, table: 255, type: 2, via: [1]), replacing: false),
        .route(route("10.1.0.2", 32, table: 255, type: 2), replacing: false),
        .route(route("10.1.0.0", 24), replacing: false),
        .route(route("0.0.0.0", 0, gateway: "10.1.0.1"), replacing: false),
    ]

    /// Applies `message` to `view`; whether it changed.
    static func apply(_ message: NetlinkMessage, to view: inout NetworkView,
                      classify: @Sendable (String) -> NetworkInterface.Kind = other) -> Bool {
        view.apply(message, classify: classify)
    }

    @Test func applyingWhatIsThereChangesNothing() {
        var view = Self.view(Self.fw0Up)
        let nothing: [NetlinkMessage] = Self.fw0Up + [
            .routeRemoved(route("192.0.2.0", 24)), .addressRemoved(address(2, "10.9.9.9", 24)),
            .linkRemoved(index: 9), .done(sequence: 1), .error(sequence: 1, errno: 0),
        ]
        for message in nothing {
            let changed = Self.apply(message, to: &view)
            #expect(!changed, "\(message)")
        }
    }

    @Test func aLinkWhoseKindChangesIsAChange() {
        var view = Self.view(Self.fw0Up)
        let changed = Self.apply(.link(link(2, "fw0", flags: upFlags)), to: &view, classify: { _ in .wwan })
        #expect(changed)
        #expect(view.links[2]?.kind == .wwan)
    }

    @Test func settingALinkDownDropsItsRoutesButTheLocalOnes() {
        var view = Self.view(Self.fw0Up + [.route(route("10.7.0.0", 16, via: [2, 1]), replacing: false)])
        let changed = Self.apply(.link(link(2, "fw0", flags: downFlags)), to: &view)
        #expect(changed)
        #expect(Set(view.routes) == [
            route("127.0.0.1", 32, table: 255, type: 2, via: [1]),
            route("10.1.0.2", 32, table: 255, type: 2),
            route("10.7.0.0", 16, via: [2, 1]),
        ])
        #expect(view.addresses.count == 2)
    }

    @Test func losingOnlyTheCarrierKeepsTheRoutes() {
        var view = Self.view(Self.fw0Up)
        let changed = Self.apply(.link(link(2, "fw0", flags: upFlags & ~0x40)), to: &view)
        #expect(changed)
        #expect(view.routes.count == 4)
        #expect(!view.defaultPath().isReachable)
    }

    @Test func removingALinkDropsItsAddressesAndRoutes() {
        var view = Self.view(Self.fw0Up)
        let changed = Self.apply(.linkRemoved(index: 2), to: &view)
        #expect(changed)
        #expect(view.links.keys.sorted() == [1])
        #expect(view.addresses == [address(1, "127.0.0.1", 8, scope: 254)])
        #expect(view.routes == [route("127.0.0.1", 32, table: 255, type: 2, via: [1])])
    }

    @Test func aReplacementTakesThePlaceOfTheRoutesOfItsKey() {
        var view = Self.view(Self.fw0Up)
        let replacement = route("0.0.0.0", 0, gateway: "10.1.0.254")
        let replaced = Self.apply(.route(replacement, replacing: true), to: &view)
        let replacedAgain = Self.apply(.route(replacement, replacing: true), to: &view)
        #expect(replaced && !replacedAgain)
        #expect(view.routes.filter { $0.prefixLength == 0 } == [replacement])
    }

    @Test func routesOfOtherTablesAreNotKept() {
        var view = Self.view(Self.fw0Up)
        let changed = Self.apply(.route(route("10.8.0.0", 16, table: 100), replacing: false), to: &view)
        #expect(!changed)
        #expect(view.routes.count == 4)
    }

    @Test func anAppendedRouteOfTheSameKeyIsKept() {
        var view = Self.view(Self.fw0Up)
        let changed = Self.apply(.route(route("0.0.0.0", 0, gateway: "10.1.0.254"), replacing: false), to: &view)
        #expect(changed)
        #expect(view.routes.filter { $0.prefixLength == 0 }.map(\.gateway) == [ip("10.1.0.1"), ip("10.1.0.254")])
    }

    @Test func aDeletionThatDoesNotRepeatTheRouteRemovesTheFirstOfItsKey() {
        var view = Self.view(Self.fw0Up)
        let changed = Self.apply(.routeRemoved(route("0.0.0.0", 0, via: [])), to: &view)
        #expect(changed)
        #expect(!view.routes.contains { $0.prefixLength == 0 })
    }

    @Test func anAddressIsKeptOncePerInterfaceAndAddress() {
        var view = Self.view(Self.fw0Up)
        let added = Self.apply(.address(address(2, "10.1.0.2", 16)), to: &view)
        #expect(added)
        #expect(view.addresses.filter { $0.index == 2 } == [address(2, "10.1.0.2", 16)])
        let removed = Self.apply(.addressRemoved(address(2, "10.1.0.2", 16)), to: &view)
        #expect(removed)
        #expect(view.addresses.filter { $0.index == 2 }.isEmpty)
    }

    /// After each captured step: the path to 10.1.0.9 (fw0's subnet), to 198.51.100.7 (the multipath route),
    /// to 192.0.2.1 (the unreachable route) and to any network.
    @Test func theCapturedSequenceAppliedInOrder() throws {
        let expected: [String: [Bool]] = [
            "link-added": [false, false, false, false], "link-up": [false, false, false, false],
            "address-ipv4-added": [true, false, false, false], "address-ipv6-added": [true, false, false, false],
            "route-ipv4-default-added": [true, true, true, true], "route-ipv6-default-added": [true, true, true, true],
            "route-unreachable-added": [true, true, false, true], "route-multipath-added": [true, true, false, true],
            "route-ipv4-default-removed": [true, true, false, true],
            "address-ipv4-removed": [false, false, false, true],
            "link-down": [false, false, false, false], "link-removed": [false, false, false, false],
        ]
        var view = NetworkView()
        for step in NetlinkFixture.steps {
            for message in try NetlinkFixture.datagrams(step).flatMap({ NetlinkParser.messages(in: $0) }) {
                _ = view.apply(message, classify: Self.other)
            }
            guard let paths = expected[step] else { continue }
            let observed = [view.path(to: ip("10.1.0.9")), view.path(to: ip("198.51.100.7")),
                            view.path(to: ip("192.0.2.1")), view.defaultPath()].map(\.isReachable)
            #expect(observed == paths, "\(step)")
        }
        #expect(view.links.isEmpty && view.addresses.isEmpty)
        #expect(view.routes == [route("192.0.2.0", 24, type: 7, via: [])])
    }
}
