// PublicSuffixList.swift
//
// The public suffix list (publicsuffix.org), so that a server cannot set a cookie for a whole registry
// ("com", "co.uk", "github.io"): RFC 6265 §5.3 step 5. The system's copy
// (/usr/share/publicsuffix/public_suffix_list.dat, Debian package `publicsuffix`) is read once per process,
// on first use. Without it, the fallback treats every single-label domain as a public suffix.
//
// The format: one rule per line; "//" starts a comment line; a line ends at the first whitespace. A rule
// is a domain ("com"), a wildcard ("*.ck": every label under ck), or an exception ("!www.ck": not a
// suffix although a wildcard covers it). Both the ICANN and the private sections apply. Unicode rules
// are compared in their "xn--" form, as hosts arrive. The algorithm (publicsuffix.org/list): an exception
// rule that matches wins, and its suffix is the rule without its first label; otherwise the matching rule
// with the most labels; otherwise the implicit "*" rule (the last label).

import Foundation

// MARK: - PublicSuffixList

/// The public suffix rules a cookie's Domain attribute is checked against.
struct PublicSuffixList: Sendable {
    /// Where Debian's `publicsuffix` package installs the list.
    static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The system's list, read on first use; the single-label fallback when the file is absent or unreadable.
    static let system: PublicSuffixList = {
        guard let text = try? String(contentsOfFile: systemPath, encoding: .utf8) else { return .singleLabel }
        return PublicSuffixList(rules: text)
    }()

    /// The fallback without a list: every single-label domain is a public suffix.
    static let singleLabel = PublicSuffixList(rules: nil)

    private let domains: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>
    /// False for the single-label fallback.
    let hasRules: Bool

    /// The rules of a list in publicsuffix.org's format; nil gives the single-label fallback.
    init(rules text: String?) {
        var domains = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in (text ?? "").split(whereSeparator: \.isNewline) {
            guard let word = line.split(whereSeparator: \.isWhitespace).first, !word.hasPrefix("//") else {
                continue
            }
            let rule = Punycode.asciiDomain(word.lowercased())
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                domains.insert(rule)
            }
        }
        self.domains = domains
        self.wildcards = wildcards
        self.exceptions = exceptions
        self.hasRules = text != nil
    }

    // MARK: Queries

    /// The public suffix of `domain` (lower-case, ASCII): the labels the prevailing rule covers.
    func publicSuffix(of domain: String) -> String {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard hasRules else { return labels.last ?? domain }
        let suffixes = labels.indices.map { labels[$0...].joined(separator: ".") }
        if let exception = suffixes.firstIndex(where: exceptions.contains), exception + 1 < suffixes.count {
            return suffixes[exception + 1]
        }
        for index in suffixes.indices {
            if domains.contains(suffixes[index]) { return suffixes[index] }
            if index + 1 < suffixes.count, wildcards.contains(suffixes[index + 1]) { return suffixes[index] }
        }
        return suffixes.last ?? domain
    }

    /// True when `domain` is itself a public suffix (a cookie may not name it as its Domain).
    func isPublicSuffix(_ domain: String) -> Bool {
        publicSuffix(of: domain) == domain
    }

    /// The registrable domain of `host` (its public suffix and one more label); the host itself for an
    /// IP address or a host that is a public suffix.
    func registrableDomain(of host: String) -> String {
        guard !HTTPCookie.isIPAddress(host) else { return host }
        let suffix = publicSuffix(of: host)
        guard host != suffix else { return host }
        let rest = host.dropLast(suffix.count + 1)
        let label = rest.split(separator: ".", omittingEmptySubsequences: false).last ?? rest
        return label + "." + suffix
    }
}
