// Helpers for the network-monitor tests: the captured datagrams of Fixtures/netlink, and short builders
// for the values they decode to.

import Foundation
import Testing

import FWLoop
import TestSupport
@testable import FWNetworkMonitor

// MARK: - Fixtures

/// The route-netlink datagrams captured by Fixtures/netlink/capture.py, one file per step.
enum NetlinkFixture {
    /// The steps in the order they were captured.
    static let steps = [
        "link-added", "link-up", "address-ipv4-added", "address-ipv6-added", "route-ipv4-default-added",
        "route-ipv6-default-added", "route-unreachable-added", "route-multipath-added",
        "route-ipv4-default-removed", "address-ipv4-removed", "link-down", "link-removed",
        "barrier-acknowledged", "request-failed",
    ]

    /// The datagrams of step `name` (one hex line each).
    static func datagrams(_ name: String, filePath: String = #filePath) throws -> [[UInt8]] {
        let text = try String(contentsOfFile: try directory(filePath: filePath) + "/\(name).hex", encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(bytes(hex: line), "a line of \(name).hex is not hex")
        }
    }

    /// `Fixtures/netlink`, found by walking up from the test's source file.
    private static func directory(filePath: String) throws -> String {
        var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("Fixtures/netlink").path
            if FileManager.default.fileExists(atPath: candidate) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        throw TimedOut(what: "a Fixtures/netlink directory above \(filePath)")
    }

    /// The bytes of a hex string; nil when it is not hex.
    static func bytes<S: StringProtocol>(hex: S) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            result.append(byte)
        }
        return result
    }
}

// MARK: - Builders

/// The address of numeric text (a test literal).
func ip(_ text: String) -> IPAddress {
    guard let address = SocketAddress(numericHost: text, port: 0) else {
        preconditionFailure("\(text) is not a numeric address")
    }
    return IPAddress(address)
}

/// A link message value.
func link(_ index: Int32, _ name: String, flags: UInt32) -> NetlinkLink {
    NetlinkLink(index: index, name: name, flags: flags)
}

/// An address message value.
func address(_ index: Int32, _ text: String, _ prefixLength: Int, scope: UInt8 = 0) -> NetlinkAddress {
    NetlinkAddress(index: index, address: ip(text), prefixLength: prefixLength, scope: scope)
}

/// A route message value (`type` 1 unicast, 2 local, 3 broadcast, 5 multicast, 7 unreachable; `table`
/// 254 main, 255 local).
func route(_ destination: String, _ prefixLength: Int, table: UInt32 = 254, type: UInt8 = 1,
           priority: UInt32 = 0, via interfaces: [Int32] = [2], gateway: String? = nil) -> NetlinkRoute {
    NetlinkRoute(table: table, type: type, destination: ip(destination), prefixLength: prefixLength, tos: 0,
                 priority: priority, interfaces: interfaces, gateway: gateway.map(ip))
}

/// Link flags: IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_NOARP | IFF_LOWER_UP (an interface that is up).
let upFlags: UInt32 = 0x100c3
/// Link flags: IFF_BROADCAST | IFF_NOARP (an interface that is down).
let downFlags: UInt32 = 0x82
/// Link flags of a loopback interface that is up: IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP.
let loopbackFlags: UInt32 = 0x10049
