// SocketAddress: an IPv4 or IPv6 address with a port, as a sockaddr for the kernel and as text.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An IPv4 or IPv6 socket address: numeric host text and a port.
///
/// Kept as the kernel's sockaddr; `host` is made from it when read (`inet_ntop`), since most addresses a
/// connection meets are only ever connected to (formatting three of them cost a new connection about 6,000
/// instructions). Two addresses are equal when family, address, IPv6 scope and port are, which is when their
/// canonical texts and ports are.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        /// IPv4 (`AF_INET`).
        case ipv4
        /// IPv6 (`AF_INET6`).
        case ipv6
    }

    private enum Storage {
        case ipv4(sockaddr_in)
        case ipv6(sockaddr_in6)
    }

    private let storage: Storage

    /// Numeric text, e.g. `"127.0.0.1"` or `"::1"`; an IPv6 scope follows a `%`, e.g. `"fe80::1%2"`.
    public var host: String {
        switch storage {
        case .ipv4(let address):
            return Self.text(family: AF_INET, address.sin_addr, capacity: Int(INET_ADDRSTRLEN))
        case .ipv6(let address):
            let text = Self.text(family: AF_INET6, address.sin6_addr, capacity: Int(INET6_ADDRSTRLEN))
            return address.sin6_scope_id == 0 ? text : "\(text)%\(address.sin6_scope_id)"
        }
    }

    /// The port, 0...65535.
    public var port: Int {
        switch storage {
        case .ipv4(let address):
            return Int(UInt16(bigEndian: address.sin_port))
        case .ipv6(let address):
            return Int(UInt16(bigEndian: address.sin6_port))
        }
    }

    /// The address family.
    public var family: Family {
        switch storage {
        case .ipv4:
            return .ipv4
        case .ipv6:
            return .ipv6
        }
    }

    /// `"127.0.0.1:80"` or `"[::1]:80"`.
    public var description: String {
        switch storage {
        case .ipv4:
            return "\(host):\(port)"
        case .ipv6:
            return "[\(host)]:\(port)"
        }
    }

    // MARK: Creating

    /// Parses numeric IPv4 or IPv6 text (`inet_pton`; an IPv6 scope may follow as `%index` or
    /// `%interface`). Nil for anything else, including names, and for a port outside 0...65535.
    public init?(numericHost: String, port: Int) {
        guard let networkPort = UInt16(exactly: port) else {
            return nil
        }
        var ipv4 = sockaddr_in()
        // `withCString` reads the string in place (passing the `String` itself would copy it into an array).
        if numericHost.withCString({ inet_pton(AF_INET, $0, &ipv4.sin_addr) }) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = networkPort.bigEndian
            self.init(storage: .ipv4(ipv4))
            return
        }
        let parts = numericHost.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        var ipv6 = sockaddr_in6()
        guard String(parts[0]).withCString({ inet_pton(AF_INET6, $0, &ipv6.sin6_addr) }) == 1 else {
            return nil
        }
        if parts.count == 2 {
            guard let scope = Self.scopeID(parts[1]) else {
                return nil
            }
            ipv6.sin6_scope_id = scope
        }
        ipv6.sin6_family = sa_family_t(AF_INET6)
        ipv6.sin6_port = networkPort.bigEndian
        self.init(storage: .ipv6(ipv6))
    }

    /// Reads an `AF_INET` or `AF_INET6` sockaddr, replacing its port when `port` is given; nil for
    /// other families.
    init?(_ address: UnsafePointer<sockaddr>, port: UInt16? = nil) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ipv4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            ipv4.sin_port = port?.bigEndian ?? ipv4.sin_port
            self.init(storage: .ipv4(ipv4))
        case AF_INET6:
            var ipv6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            ipv6.sin6_port = port?.bigEndian ?? ipv6.sin6_port
            self.init(storage: .ipv6(ipv6))
        default:
            return nil
        }
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    // MARK: Using

    /// Calls `body` with this address as a sockaddr and its length, e.g. for `connect` or `bind`.
    package func withSockAddr<R, E: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R
    ) throws(E) -> R {
        switch storage {
        case .ipv4(let address):
            return try withUnsafeBytes(of: address) { (bytes) throws(E) -> R in
                try body(bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
            }
        case .ipv6(let address):
            return try withUnsafeBytes(of: address) { (bytes) throws(E) -> R in
                try body(bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
            }
        }
    }

    /// The `AF_*` constant of the family.
    package static func domain(of family: Family) -> Int32 {
        switch family {
        case .ipv4:
            return AF_INET
        case .ipv6:
            return AF_INET6
        }
    }

    // MARK: Equality

    /// Equal when family, address, IPv6 scope and port are (and so their texts and ports).
    public static func == (lhs: SocketAddress, rhs: SocketAddress) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.ipv4(let left), .ipv4(let right)):
            return left.sin_addr.s_addr == right.sin_addr.s_addr && left.sin_port == right.sin_port
        case (.ipv6(let left), .ipv6(let right)):
            return withUnsafeBytes(of: left.sin6_addr) { leftBytes in
                withUnsafeBytes(of: right.sin6_addr) { leftBytes.elementsEqual($0) }
            } && left.sin6_scope_id == right.sin6_scope_id && left.sin6_port == right.sin6_port
        case (.ipv4, .ipv6), (.ipv6, .ipv4):
            return false
        }
    }

    /// Hashes family, address, IPv6 scope and port.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(family)
        switch storage {
        case .ipv4(let address):
            hasher.combine(address.sin_addr.s_addr)
        case .ipv6(let address):
            withUnsafeBytes(of: address.sin6_addr) { hasher.combine(bytes: $0) }
            hasher.combine(address.sin6_scope_id)
        }
        hasher.combine(port)
    }

    // MARK: Helpers

    private static func text<A>(family: Int32, _ address: A, capacity: Int) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            let converted = withUnsafeBytes(of: address) { bytes in
                inet_ntop(family, bytes.baseAddress, buffer.baseAddress, socklen_t(capacity))
            }
            guard converted != nil else {
                preconditionFailure("inet_ntop failed for a well-formed address")
            }
            return String(cString: buffer.baseAddress!)
        }
    }

    private static func scopeID(_ text: Substring) -> UInt32? {
        if let index = UInt32(text) {
            return index
        }
        guard !text.isEmpty else {
            return nil
        }
        let index = if_nametoindex(String(text))
        return index == 0 ? nil : index
    }
}
