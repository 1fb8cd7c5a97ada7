import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - NoProxyList

/// The hosts that bypass a proxy, as curl reads `no_proxy` (and CFNetwork `ExceptionsList`): comma- or
/// space-separated entries, each `*` (every host), a name matched as a suffix on label boundaries
/// (`example.org`, `.example.org` and `*.example.org` all match `example.org` and `www.example.org`), an
/// IPv4 or IPv6 address, or a CIDR range (`10.0.0.0/8`, `169.254/16`, `fd00::/8`), any of them followed by
/// `:port` (IPv6 in brackets: `[::1]:8080`) to match one port only. Names are never resolved to match an
/// address entry, and loopback is not exempt unless listed.
struct NoProxyList: Sendable, Equatable {
    /// One entry.
    enum Rule: Sendable, Equatable {
        case everyHost
        case suffix(String, port: Int?)
        case network([UInt8], prefixLength: Int, port: Int?)
    }

    /// The entries that parsed (malformed ones are ignored, as curl ignores them).
    let rules: [Rule]

    /// Parses a `no_proxy` value. An empty one (no `no_proxy` set, the usual case at every session's
    /// creation) is not handed to Foundation's splitting and trimming, whose first use touches about
    /// 256 KB of Foundation's pages.
    init(_ text: String) {
        guard !text.isEmpty else {
            self.init(entries: [])
            return
        }
        let separators = CharacterSet(charactersIn: ", \t\n")
        self.init(entries: text.components(separatedBy: separators))
    }

    /// Parses entries one by one (CFNetwork's array).
    init(entries: [String]) {
        rules = entries.compactMap { Self.rule($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Whether `host` (lowercased, without IPv6 brackets) and `port` bypass the proxy.
    func matches(host: String, port: Int) -> Bool {
        let address = Self.addressBytes(host)
        return rules.contains { rule in
            switch rule {
            case .everyHost:
                return true
            case .suffix(let name, let only):
                guard only.map({ $0 == port }) ?? true else { return false }
                return host == name || host.hasSuffix("." + name)
            case .network(let network, let prefixLength, let only):
                guard only.map({ $0 == port }) ?? true, let address, address.count == network.count else {
                    return false
                }
                return Self.prefix(of: address, equals: network, length: prefixLength)
            }
        }
    }

    // MARK: Parsing

    private static func rule(_ entry: String) -> Rule? {
        guard !entry.isEmpty else { return nil }
        if entry == "*" { return .everyHost }
        let (hostPart, port) = splitPort(entry.lowercased())
        guard port.map({ (1...65535).contains($0) }) ?? true else { return nil }
        let pieces = hostPart.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        if pieces.count == 2 {
            guard let length = Int(pieces[1]), let network = networkBytes(String(pieces[0])),
                  (0...network.count * 8).contains(length) else { return nil }
            return .network(network, prefixLength: length, port: port)
        }
        if let address = addressBytes(hostPart) {
            return .network(address, prefixLength: address.count * 8, port: port)
        }
        var name = Substring(hostPart)
        if name.hasPrefix("*.") { name = name.dropFirst(2) }
        while name.hasPrefix(".") { name = name.dropFirst() }
        while name.hasSuffix(".") { name = name.dropLast() }
        return name.isEmpty ? nil : .suffix(String(name), port: port)
    }

    /// `host:port`, `[v6]:port`, `[v6]`, `v6` (more than one colon: no port) or `host`.
    private static func splitPort(_ entry: String) -> (String, Int?) {
        if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
            let host = String(entry[entry.index(after: entry.startIndex)..<close])
            let rest = entry[entry.index(after: close)...]
            guard rest.hasPrefix(":") else { return (host + rest, nil) }
            return (host, Int(rest.dropFirst()) ?? 0)
        }
        let colons = entry.filter { $0 == ":" }.count
        guard colons == 1, let colon = entry.firstIndex(of: ":") else { return (entry, nil) }
        return (String(entry[..<colon]), Int(entry[entry.index(after: colon)...]) ?? 0)
    }

    /// The bytes of a numeric IPv4 or IPv6 address, else nil.
    static func addressBytes(_ host: String) -> [UInt8]? {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 { return withUnsafeBytes(of: &ipv4) { Array($0) } }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, host, &ipv6) == 1 { return withUnsafeBytes(of: &ipv6) { Array($0) } }
        return nil
    }

    /// A CIDR network's address: a full address, or an IPv4 prefix of 1 to 3 octets (`169.254`).
    private static func networkBytes(_ text: String) -> [UInt8]? {
        if let address = addressBytes(text) { return address }
        let octets = text.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        guard (1...3).contains(octets.count), octets.allSatisfy({ $0 != nil }) else { return nil }
        return octets.compactMap { $0 } + [UInt8](repeating: 0, count: 4 - octets.count)
    }

    private static func prefix(of address: [UInt8], equals network: [UInt8], length: Int) -> Bool {
        var remaining = length
        for (byte, networkByte) in zip(address, network) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if byte & mask != networkByte & mask { return false }
            remaining -= bits
        }
        return true
    }
}
