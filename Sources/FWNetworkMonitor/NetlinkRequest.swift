// NetlinkRequest: the requests the network-change monitor sends to the kernel, as bytes (no I/O).

import CFWNetlink
import FWLoop

/// Encodes route-netlink requests: dumps of the current links, addresses and routes, and the barrier
/// (an acknowledged no-op whose answer arrives after every notification queued before it).
enum NetlinkRequest {
    /// What a dump asks for.
    enum Dump: CaseIterable {
        case links
        case addresses
        case routes
    }

    /// A dump of every link, address or route (all families), answered by messages of `sequence` and
    /// then `NLMSG_DONE`.
    static func dump(_ what: Dump, sequence: UInt32) -> [UInt8] {
        // A zeroed family header of the request's type: `ifinfomsg`, `ifaddrmsg` or `rtmsg`.
        let (type, familyHeader): (UInt16, Int) = switch what {
        case .links: (FW_RTM_GETLINK, 16)
        case .addresses: (FW_RTM_GETADDR, 8)
        case .routes: (FW_RTM_GETROUTE, 12)
        }
        return header(type: type, flags: FW_NLM_F_REQUEST | FW_NLM_F_DUMP, sequence: sequence,
                      bodyLength: familyHeader) + [UInt8](repeating: 0, count: familyHeader)
    }

    /// `NLMSG_NOOP` with `NLM_F_ACK`: the kernel answers with an `NLMSG_ERROR` of error 0 and `sequence`.
    static func barrier(sequence: UInt32) -> [UInt8] {
        header(type: FW_NLMSG_NOOP, flags: FW_NLM_F_REQUEST | FW_NLM_F_ACK, sequence: sequence, bodyLength: 0)
    }

    /// An `nlmsghdr` for a body of `bodyLength` bytes; the port id is 0 (the kernel fills it in).
    private static func header(type: UInt16, flags: UInt16, sequence: UInt32, bodyLength: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(NetlinkParser.headerLength + bodyLength)
        withUnsafeBytes(of: UInt32(NetlinkParser.headerLength + bodyLength)) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        withUnsafeBytes(of: flags) { bytes += $0 }
        withUnsafeBytes(of: sequence) { bytes += $0 }
        withUnsafeBytes(of: UInt32(0)) { bytes += $0 }
        return bytes
    }
}
