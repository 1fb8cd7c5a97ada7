// IPAddress: an IPv4 or IPv6 address as its network-order bytes, for matching against route prefixes.

import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An IPv4 (4 bytes) or IPv6 (16 bytes) address in network byte order.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    let family: SocketAddress.Family
    /// The address bytes, network order: 4 for IPv4, 16 for IPv6.
    let bytes: [UInt8]

    /// The address from `bytes` of `family`; nil when the count does not fit the family.
    init?(family: SocketAddress.Family, bytes: [UInt8]) {
        guard bytes.count == Self.length(of: family) else {
            return nil
        }
        self.family = family
        self.bytes = bytes
    }

    /// The address of a socket address (its port is ignored).
    init(_ address: SocketAddress) {
        family = address.family
        bytes = address.withSockAddr { pointer, _ in
            let raw = UnsafeRawPointer(pointer)
            switch address.family {
            case .ipv4:
                return withUnsafeBytes(of: raw.loadUnaligned(as: sockaddr_in.self).sin_addr) { Array($0) }
            case .ipv6:
                return withUnsafeBytes(of: raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr) { Array($0) }
            }
        }
    }

    /// The byte count of an address of `family`.
    static func length(of family: SocketAddress.Family) -> Int {
        family == .ipv4 ? 4 : 16
    }

    /// True when the first `prefixLength` bits of this address equal those of `prefix` (same family).
    func matches(_ prefix: IPAddress, prefixLength: Int) -> Bool {
        guard family == prefix.family, prefixLength >= 0, prefixLength <= bytes.count * 8 else {
            return false
        }
        let whole = prefixLength / 8
        guard bytes[..<whole] == prefix.bytes[..<whole] else {
            return false
        }
        let bits = prefixLength % 8
        guard bits > 0 else {
            return true
        }
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        return bytes[whole] & mask == prefix.bytes[whole] & mask
    }

    /// `10.0.0.1` or `2001:db8::1`.
    var description: String {
        let domain = SocketAddress.domain(of: family)
        let capacity = Int(INET6_ADDRSTRLEN)
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            let converted = bytes.withUnsafeBytes { raw in
                inet_ntop(domain, raw.baseAddress, buffer.baseAddress, socklen_t(capacity))
            }
            guard converted != nil, let base = buffer.baseAddress else {
                return bytes.map(String.init).joined(separator: ".")
            }
            return String(cString: base)
        }
    }
}
