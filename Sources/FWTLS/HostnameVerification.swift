#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - HostnameVerification

/// Server identity checks per RFC 6125, as pure functions over a certificate's names.
///
/// - An IP literal host (IPv4, IPv6 with or without brackets) matches only IP subjectAltNames, byte for
///   byte; never a DNS name, never a wildcard, never the common name.
/// - A DNS host matches a DNS subjectAltName case-insensitively (ASCII), ignoring one trailing dot on
///   either side. Empty labels never match.
/// - A wildcard is allowed only as the whole left-most label (`*.example.com`), matches exactly one
///   non-empty label, and needs at least two labels after it (`*.com` matches nothing). `*` anywhere else
///   (`f*.example.com`, `www.*.com`) makes the name unusable.
/// - The subject common name is consulted only when the certificate has no DNS or IP subjectAltName at
///   all, and only for DNS hosts, with the same rules.
public enum HostnameVerification {
    /// True when `host` is one of the identities the names describe.
    public static func matches(host: String, dnsNames: [String], ipAddresses: [[UInt8]], commonName: String?) -> Bool {
        let host = unbracketed(host)
        if let address = IPAddressText.parse(host) {
            return ipAddresses.contains(address)
        }
        guard let hostLabels = labels(of: host) else { return false }
        if dnsNames.isEmpty && ipAddresses.isEmpty {
            guard let commonName else { return false }
            return matches(hostLabels: hostLabels, pattern: commonName)
        }
        return dnsNames.contains { matches(hostLabels: hostLabels, pattern: $0) }
    }

    // MARK: Matching

    private static func matches(hostLabels: [[UInt8]], pattern: String) -> Bool {
        guard let patternLabels = labels(of: pattern), patternLabels.count == hostLabels.count else { return false }
        let star = UInt8(ascii: "*")
        if patternLabels[0] == [star] {
            guard patternLabels.count >= 3 else { return false }
            return patternLabels.dropFirst().allSatisfy { !$0.contains(star) }
                && patternLabels.dropFirst() == hostLabels.dropFirst()
        }
        return patternLabels.allSatisfy { !$0.contains(star) } && patternLabels == hostLabels
    }

    /// The lower-cased labels of a DNS name without one trailing dot, or nil when a label is empty.
    private static func labels(of name: String) -> [[UInt8]]? {
        var bytes = Array(name.utf8)
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard !bytes.isEmpty else { return nil }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { label in
            label.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        }
        return labels.contains { $0.isEmpty } ? nil : labels
    }

    private static func unbracketed(_ host: String) -> String {
        guard host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 else { return host }
        return String(host.dropFirst().dropLast())
    }
}

// MARK: - Certificate

extension Certificate {
    /// True when the certificate identifies `host` (see `HostnameVerification`).
    public func matches(host: String) -> Bool {
        HostnameVerification.matches(
            host: host, dnsNames: dnsNames, ipAddresses: ipAddresses,
            commonName: hasAlternativeNames ? nil : commonName
        )
    }
}

// MARK: - IP address text

/// IPv4 and IPv6 literals to bytes and back (inet_pton / inet_ntop).
enum IPAddressText {
    /// The 4 or 16 address bytes of an IP literal (an IPv6 zone suffix "%eth0" is ignored), or nil.
    static func parse(_ text: String) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 16)
        if bytes.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 {
            return Array(bytes[0..<4])
        }
        let address = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        if bytes.withUnsafeMutableBytes({ inet_pton(AF_INET6, String(address), $0.baseAddress) }) == 1 {
            return bytes
        }
        return nil
    }

    /// True when `host` is an IP literal (with or without IPv6 brackets).
    static func isLiteral(_ host: String) -> Bool {
        let inner = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return parse(inner) != nil
    }

    /// "127.0.0.1" or "::1" for 4 or 16 bytes; hex bytes for any other length.
    static func format(_ bytes: [UInt8]) -> String {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return Hex.upper(bytes)
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let formatted = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        guard formatted != nil else { return Hex.upper(bytes) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
