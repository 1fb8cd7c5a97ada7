// NetlinkParser: datagrams the kernel really sent (Fixtures/netlink, captured by its capture.py in a fresh
// network namespace) decode to the expected messages; every truncation of them decodes to a prefix of those
// messages without crashing; malformed and uninteresting messages are dropped.

import Testing

import FWLoop
@testable import FWNetworkMonitor

@Suite struct NetlinkParserTests {
    /// What each captured step decodes to (interface 2 is fw0; its link-local address comes from its MAC).
    static let captured: [(String, [NetlinkMessage])] = [
        ("link-added", [.link(link(2, "fw0", flags: downFlags))]),
        ("link-up", [
            .link(link(2, "fw0", flags: upFlags)),
            .route(route("ff00::", 8, table: 255, type: 5, priority: 256), replacing: false),
            .route(route("fe80::", 64, priority: 256), replacing: false),
            .address(address(2, "fe80::9cc7:eff:fe05:ff4f", 64, scope: 253)),
            .route(route("fe80::9cc7:eff:fe05:ff4f", 128, table: 255, type: 2), replacing: false),
        ]),
        ("address-ipv4-added", [
            .address(address(2, "10.1.0.2", 24)),
            .route(route("10.1.0.2", 32, table: 255, type: 2), replacing: false),
            .route(route("10.1.0.0", 24), replacing: false),
            .route(route("10.1.0.255", 32, table: 255, type: 3), replacing: false),
        ]),
        ("address-ipv6-added", [
            .route(route("2001:db8::", 64, priority: 256), replacing: false),
            .address(address(2, "2001:db8::2", 64)),
            .route(route("2001:db8::2", 128, table: 255, type: 2), replacing: false),
        ]),
        ("route-ipv4-default-added",
         [.route(route("0.0.0.0", 0, priority: 100, gateway: "10.1.0.1"), replacing: false)]),
        ("route-ipv6-default-added",
         [.route(route("::", 0, priority: 1024, gateway: "2001:db8::1"), replacing: false)]),
        ("route-unreachable-added", [.route(route("192.0.2.0", 24, type: 7, via: []), replacing: false)]),
        ("route-multipath-added", [.route(route("198.51.100.0", 24, via: [2, 2]), replacing: false)]),
        ("route-ipv4-default-removed", [.routeRemoved(route("0.0.0.0", 0, priority: 100, gateway: "10.1.0.1"))]),
        ("address-ipv4-removed", [
            .addressRemoved(address(2, "10.1.0.2", 24)),
            .routeRemoved(route("10.1.0.0", 24)),
            .routeRemoved(route("10.1.0.255", 32, table: 255, type: 3)),
            .routeRemoved(route("10.1.0.2", 32, table: 255, type: 2)),
        ]),
        ("link-down", [
            .link(link(2, "fw0", flags: downFlags)),
            .routeRemoved(route("2001:db8::", 64, priority: 256)),
            .routeRemoved(route("fe80::", 64, priority: 256)),
            .routeRemoved(route("::", 0, priority: 1024, gateway: "2001:db8::1")),
            .routeRemoved(route("2001:db8::2", 128, table: 255, type: 2)),
            .routeRemoved(route("fe80::9cc7:eff:fe05:ff4f", 128, table: 255, type: 2)),
            .routeRemoved(route("ff00::", 8, table: 255, type: 5, priority: 256)),
            .addressRemoved(address(2, "2001:db8::2", 64)),
            .addressRemoved(address(2, "fe80::9cc7:eff:fe05:ff4f", 64, scope: 253)),
        ]),
        ("link-removed", [.linkRemoved(index: 2)]),
        ("barrier-acknowledged", [.error(sequence: 77, errno: 0)]),
        ("request-failed", [.error(sequence: 78, errno: 19)]),
    ]

    @Test(arguments: captured)
    func capturedDatagramsDecode(step: String, expected: [NetlinkMessage]) throws {
        let decoded = try NetlinkFixture.datagrams(step).flatMap { NetlinkParser.messages(in: $0) }
        #expect(decoded == expected)
    }

    @Test func everyCapturedStepHasARow() {
        #expect(Self.captured.map(\.0) == NetlinkFixture.steps)
    }

    @Test(arguments: NetlinkFixture.steps)
    func aTruncatedDatagramDecodesToAPrefix(step: String) throws {
        for datagram in try NetlinkFixture.datagrams(step) {
            let whole = NetlinkParser.messages(in: datagram)
            for cut in 0..<datagram.count {
                let part = NetlinkParser.messages(in: Array(datagram[..<cut]))
                #expect(Array(whole.prefix(part.count)) == part, "\(step) cut at \(cut)")
            }
        }
    }

    // MARK: Crafted messages

    /// One message: a header of `type` and `flags` (sequence 9) and `body`, padded.
    static func message(type: UInt16, flags: UInt16 = 0, body: [UInt8]) -> [UInt8] {
        var bytes = le(UInt32(16 + body.count)) + le(type) + le(flags) + le(UInt32(9)) + le(UInt32(0)) + body
        bytes += [UInt8](repeating: 0, count: NetlinkParser.aligned(bytes.count) - bytes.count)
        return bytes
    }

    /// An attribute of `type` with `value`, padded.
    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        let bytes = le(UInt16(4 + value.count)) + le(type) + value
        return bytes + [UInt8](repeating: 0, count: NetlinkParser.aligned(bytes.count) - bytes.count)
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// `rtmsg` for IPv4 `10.9.0.0/16` in `table` with `flags`, then `attributes`.
    static func ipv4Route(table: UInt8 = 254, flags: UInt32 = 0, attributes: [UInt8]) -> [UInt8] {
        [2, 16, 0, 0, table, 4, 0, 1] + le(flags) + attribute(1, [10, 9, 0, 0]) + attributes
    }

    static let oif2 = attribute(4, le(Int32(2)))

    @Test(arguments: [
        ("NLM_F_REPLACE marks a replacement", message(type: 24, flags: 0x500, body: ipv4Route(attributes: oif2)),
         [NetlinkMessage.route(route("10.9.0.0", 16), replacing: true)]),
        ("RTA_TABLE wins over rtm_table", message(type: 24, body: ipv4Route(table: 252, attributes: oif2
            + attribute(15, le(UInt32(1000))))),
         [.route(route("10.9.0.0", 16, table: 1000), replacing: false)]),
        ("a cloned route-cache entry is skipped", message(type: 24, body: ipv4Route(flags: 0x200, attributes: oif2)),
         []),
        ("an attribute longer than its message drops the message",
         message(type: 24, body: ipv4Route(attributes: le(UInt16(64)) + le(UInt16(4)) + le(Int32(2)))), []),
        ("an attribute shorter than its header drops the message",
         message(type: 24, body: ipv4Route(attributes: le(UInt16(2)) + le(UInt16(4)))), []),
        ("a destination longer than the family's address drops the message",
         message(type: 24, body: [2, 16, 0, 0, 254, 4, 0, 1] + le(UInt32(0)) + attribute(1, [10, 9, 0, 0, 1])), []),
        ("a prefix longer than the address drops the message",
         message(type: 24, body: [2, 33, 0, 0, 254, 4, 0, 1] + le(UInt32(0)) + oif2), []),
        ("another family is skipped",
         message(type: 24, body: [7, 0, 0, 0, 254, 4, 0, 1] + le(UInt32(0)) + oif2), []),
        ("a link without a name is skipped", message(type: 16, body: [UInt8](repeating: 0, count: 16)), []),
        ("an unknown type is skipped", message(type: 99, body: [1, 2, 3, 4]), []),
        ("a short error is skipped", message(type: 2, body: [1, 2]), []),
        ("a header claiming more than the datagram ends it",
         le(UInt32(100)) + Array(message(type: 3, body: le(Int32(0))).dropFirst(4)), []),
        ("a header claiming less than a header ends it", le(UInt32(8)) + [UInt8](repeating: 0, count: 12), []),
        ("messages after a done still decode", message(type: 3, body: le(Int32(0))) + message(type: 3, body: []),
         [.done(sequence: 9), .done(sequence: 9)]),
    ] as [(String, [UInt8], [NetlinkMessage])])
    func craftedMessages(_ name: String, datagram: [UInt8], expected: [NetlinkMessage]) {
        #expect(NetlinkParser.messages(in: datagram) == expected, "\(name)")
    }
}
