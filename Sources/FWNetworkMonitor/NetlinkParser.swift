// NetlinkParser: NETLINK_ROUTE datagrams in, `NetlinkMessage` values out. No I/O, no state: a datagram
// holds whole messages (the kernel never splits one across datagrams), so each is decoded on its own.
//
// Layout (native byte order, every part aligned to 4 bytes): a 16-byte `nlmsghdr` (length, type, flags,
// sequence, port id), then a family header (`ifinfomsg` 16 bytes, `ifaddrmsg` 8, `rtmsg` 12), then
// attributes (`rtattr`: 2-byte length including its 4-byte header, 2-byte type, the value, padding).
// What the kernel sends is trusted no further than its lengths: a message whose length runs past the
// datagram ends the datagram, and a message with a malformed attribute is dropped; neither crashes.
// Messages the monitor has no use for (other families, cloned route-cache entries, other types) are
// skipped.

import CFWNetlink
import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Decodes the messages of route-netlink datagrams.
enum NetlinkParser {
    /// The size of `nlmsghdr`.
    static let headerLength = 16
    /// `NLM_F_REPLACE` in the header flags of `RTM_NEWROUTE`.
    private static let replaceFlag: UInt16 = 0x100
    /// `RTM_F_CLONED` in `rtm_flags`: a route-cache entry, not a route.
    private static let clonedFlag: UInt32 = 0x200

    /// The messages of one datagram, in order.
    static func messages(in datagram: [UInt8]) -> [NetlinkMessage] {
        datagram.withUnsafeBytes { messages(in: $0) }
    }

    /// The messages of one datagram, in order.
    static func messages(in datagram: UnsafeRawBufferPointer) -> [NetlinkMessage] {
        var result: [NetlinkMessage] = []
        var offset = 0
        while datagram.count - offset >= headerLength {
            let length = Int(datagram.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard length >= headerLength, length <= datagram.count - offset else {
                break
            }
            let type = datagram.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
            let flags = datagram.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self)
            let sequence = datagram.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let body = UnsafeRawBufferPointer(rebasing: datagram[(offset + headerLength)..<(offset + length)])
            if let message = message(type: type, flags: flags, sequence: sequence, body: body) {
                result.append(message)
            }
            offset += aligned(length)
        }
        return result
    }

    // MARK: Messages

    private static func message(type: UInt16, flags: UInt16, sequence: UInt32,
                                body: UnsafeRawBufferPointer) -> NetlinkMessage? {
        switch type {
        case FW_NLMSG_DONE:
            return .done(sequence: sequence)
        case FW_NLMSG_ERROR:
            guard body.count >= 4 else { return nil }
            return .error(sequence: sequence, errno: -body.loadUnaligned(as: Int32.self))
        case FW_RTM_NEWLINK:
            return link(body).map(NetlinkMessage.link)
        case FW_RTM_DELLINK:
            guard body.count >= 16 else { return nil }
            return .linkRemoved(index: body.loadUnaligned(fromByteOffset: 4, as: Int32.self))
        case FW_RTM_NEWADDR:
            return address(body).map(NetlinkMessage.address)
        case FW_RTM_DELADDR:
            return address(body).map(NetlinkMessage.addressRemoved)
        case FW_RTM_NEWROUTE:
            return route(body).map { .route($0, replacing: flags & replaceFlag != 0) }
        case FW_RTM_DELROUTE:
            return route(body).map(NetlinkMessage.routeRemoved)
        default:
            return nil
        }
    }

    /// `ifinfomsg`: family, pad, type (2), index (4), flags (4), change mask (4); then `IFLA_*`.
    private static func link(_ body: UnsafeRawBufferPointer) -> NetlinkLink? {
        guard body.count >= 16, let attributes = attributes(body, from: 16),
              let name = attributes[FW_IFLA_IFNAME].flatMap(cString) else { return nil }
        return NetlinkLink(index: body.loadUnaligned(fromByteOffset: 4, as: Int32.self), name: name,
                           flags: body.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }

    /// `ifaddrmsg`: family, prefix length, flags, scope, index (4); then `IFA_*`.
    private static func address(_ body: UnsafeRawBufferPointer) -> NetlinkAddress? {
        guard body.count >= 8, let family = family(body[0]), let attributes = attributes(body, from: 8),
              let value = attributes[FW_IFA_LOCAL] ?? attributes[FW_IFA_ADDRESS],
              let address = IPAddress(family: family, bytes: Array(value)) else { return nil }
        return NetlinkAddress(index: Int32(bitPattern: body.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                              address: address, prefixLength: Int(body[1]), scope: body[3])
    }

    /// `rtmsg`: family, destination length, source length, tos, table, protocol, scope, type, flags (4);
    /// then `RTA_*`.
    private static func route(_ body: UnsafeRawBufferPointer) -> NetlinkRoute? {
        guard body.count >= 12, let family = family(body[0]),
              body.loadUnaligned(fromByteOffset: 8, as: UInt32.self) & clonedFlag == 0,
              let attributes = attributes(body, from: 12) else { return nil }
        let prefixLength = Int(body[1])
        let zero = [UInt8](repeating: 0, count: IPAddress.length(of: family))
        guard prefixLength <= zero.count * 8,
              let destination = IPAddress(family: family, bytes: attributes[FW_RTA_DST].map(Array.init) ?? zero),
              let interfaces = interfaces(attributes) else { return nil }
        let table = attributes[FW_RTA_TABLE].flatMap(uint32) ?? UInt32(body[4])
        let gateway = attributes[FW_RTA_GATEWAY].flatMap { IPAddress(family: family, bytes: Array($0)) }
        return NetlinkRoute(table: table, type: body[7], destination: destination, prefixLength: prefixLength,
                            tos: body[3], priority: attributes[FW_RTA_PRIORITY].flatMap(uint32) ?? 0,
                            interfaces: interfaces, gateway: gateway)
    }

    /// `RTA_OIF`, else the interface of each `rtnexthop` of `RTA_MULTIPATH` (length (2), flags, hops,
    /// index (4), then the hop's own attributes); nil when a hop is malformed.
    private static func interfaces(_ attributes: [UInt16: UnsafeRawBufferPointer]) -> [Int32]? {
        if let oif = attributes[FW_RTA_OIF] {
            return oif.count >= 4 ? [oif.loadUnaligned(as: Int32.self)] : nil
        }
        guard let hops = attributes[FW_RTA_MULTIPATH] else { return [] }
        var result: [Int32] = []
        var offset = 0
        while hops.count - offset >= 8 {
            let length = Int(hops.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            guard length >= 8, length <= hops.count - offset else { return nil }
            result.append(hops.loadUnaligned(fromByteOffset: offset + 4, as: Int32.self))
            offset += aligned(length)
        }
        return result
    }

    // MARK: Attributes

    /// The attributes of `body` from `offset`, by type (flag bits cleared; a repeated type keeps its
    /// last value); nil when one is malformed.
    static func attributes(_ body: UnsafeRawBufferPointer, from offset: Int) -> [UInt16: UnsafeRawBufferPointer]? {
        var result: [UInt16: UnsafeRawBufferPointer] = [:]
        var offset = offset
        while body.count - offset >= 4 {
            let length = Int(body.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            guard length >= 4, length <= body.count - offset else { return nil }
            let type = body.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self) & FW_NLA_TYPE_MASK
            result[type] = UnsafeRawBufferPointer(rebasing: body[(offset + 4)..<(offset + length)])
            offset += aligned(length)
        }
        return result
    }

    /// Rounds up to the 4-byte alignment of messages and attributes.
    static func aligned(_ length: Int) -> Int {
        (length + 3) & ~3
    }

    private static func family(_ value: UInt8) -> SocketAddress.Family? {
        switch Int32(value) {
        case AF_INET:
            return .ipv4
        case AF_INET6:
            return .ipv6
        default:
            return nil
        }
    }

    private static func uint32(_ value: UnsafeRawBufferPointer) -> UInt32? {
        value.count >= 4 ? value.loadUnaligned(as: UInt32.self) : nil
    }

    /// A NUL-terminated (or unterminated) string value; nil when empty.
    private static func cString(_ value: UnsafeRawBufferPointer) -> String? {
        let bytes = value.prefix { $0 != 0 }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
