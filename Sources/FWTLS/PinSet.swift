// MARK: - PinSet

/// The SPKI pins of one host (and, when asked, its subdomains), with the lifecycle a key rotation needs
/// (TrustKit's and OkHttp's pin sets, RFC 7469's semantics without the header):
///
/// - at least two distinct pins, so a backup key can take over without bricking clients, unless the set
///   says `allowsSinglePin`;
/// - the certificates of the *verified* chain the pins may match (`scope`: leaf, intermediates, root);
/// - an expiration time after which a mismatch is still reported but no longer refused;
/// - a mode: `enforce` refuses a mismatch, `reportOnly` reports it and lets the request proceed.
///
/// `PinSetTrustEvaluator` applies sets; a mismatch becomes a `PinViolationReport`.
public struct PinSet: Sendable, Hashable {
    /// Which certificates of the verified chain a pin may match.
    public struct Scope: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int
        /// A scope from its bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The server's own certificate.
        public static let leaf = Scope(rawValue: 1)
        /// The certificates between the leaf and the anchor.
        public static let intermediates = Scope(rawValue: 2)
        /// The anchor the chain was verified to.
        public static let root = Scope(rawValue: 4)
        /// Any certificate of the verified chain (the default, as RFC 7469 and TrustKit do).
        public static let anyCertificate: Scope = [.leaf, .intermediates, .root]
    }

    /// What a mismatch does while the set has not expired.
    public struct Mode: Sendable, Hashable, CustomStringConvertible {
        /// The mode's name ("enforce", "report-only").
        public let name: String
        /// A mismatch is reported and refused.
        public static let enforce = Mode(name: "enforce")
        /// A mismatch is reported; the request proceeds (measure what enforcement would break).
        public static let reportOnly = Mode(name: "report-only")
        /// The name.
        public var description: String { name }
    }

    /// The host name the set is for (lower case, no trailing dot).
    public let host: String
    /// Whether the set also covers every subdomain of `host`.
    public let includesSubdomains: Bool
    /// The pinned SHA-256 hashes of SubjectPublicKeyInfo DER (32 bytes each, distinct, in order given).
    public let pins: [[UInt8]]
    /// Which certificates of the verified chain the pins may match.
    public let scope: Scope
    /// Seconds since 1970 after which the set is reported but not enforced; nil: never expires.
    public let expirationTime: Int64?
    /// Enforce or report only.
    public let mode: Mode
    /// Where violation reports are POSTed (RFC 7469 `report-uri`), if anywhere.
    public let reportURI: String?

    /// A set from pin text (`sha256//BASE64` each, curl's form). Throws `TrustError.invalidPin` for a
    /// malformed pin, an empty host, or fewer than two distinct pins without `allowsSinglePin`.
    public init(
        host: String, includesSubdomains: Bool = false, pins: [String], scope: Scope = .anyCertificate,
        expirationTime: Int64? = nil, mode: Mode = .enforce, allowsSinglePin: Bool = false,
        reportURI: String? = nil
    ) throws(TrustError) {
        var hashes: [[UInt8]] = []
        for pin in pins { hashes += try SPKIPinsTrustEvaluator.parse(pin) }
        try self.init(
            host: host, includesSubdomains: includesSubdomains, hashes: hashes, scope: scope,
            expirationTime: expirationTime, mode: mode, allowsSinglePin: allowsSinglePin, reportURI: reportURI
        )
    }

    /// A set from raw SHA-256 hashes of SubjectPublicKeyInfo DER; the same rules as `init(host:pins:...)`.
    public init(
        host: String, includesSubdomains: Bool = false, hashes: [[UInt8]], scope: Scope = .anyCertificate,
        expirationTime: Int64? = nil, mode: Mode = .enforce, allowsSinglePin: Bool = false,
        reportURI: String? = nil
    ) throws(TrustError) {
        let normalised = Self.normalise(host)
        guard !normalised.isEmpty else { throw TrustError.invalidPin(reason: "a pin set needs a host") }
        var distinct: [[UInt8]] = []
        for hash in hashes where !distinct.contains(hash) {
            guard hash.count == 32 else {
                throw TrustError.invalidPin(reason: "a SHA-256 pin has 32 bytes, not \(hash.count)")
            }
            distinct.append(hash)
        }
        guard !distinct.isEmpty else { throw TrustError.invalidPin(reason: "the pin set of \(normalised) is empty") }
        guard distinct.count >= 2 || allowsSinglePin else {
            throw TrustError.invalidPin(
                reason: "the pin set of \(normalised) has one pin: add a backup pin (a key not in use yet) "
                    + "or allow a single pin explicitly"
            )
        }
        guard !scope.isEmpty else { throw TrustError.invalidPin(reason: "the pin set of \(normalised) has no scope") }
        self.host = normalised
        self.includesSubdomains = includesSubdomains
        self.pins = distinct
        self.scope = scope
        self.expirationTime = expirationTime
        self.mode = mode
        self.reportURI = reportURI
    }

    // MARK: Questions

    /// The pins in curl's form, `sha256//BASE64`.
    public var pinStrings: [String] {
        pins.map { "sha256//" + Base64.encode($0) }
    }

    /// Whether the set covers `host` (the same host, or a subdomain when `includesSubdomains`).
    public func covers(host: String) -> Bool {
        let host = Self.normalise(host)
        return host == self.host || (includesSubdomains && host.hasSuffix("." + self.host))
    }

    /// Whether the set has expired at `time` (seconds since 1970): then it is reported, not enforced.
    public func isExpired(at time: Int64) -> Bool {
        guard let expirationTime else { return false }
        return time > expirationTime
    }

    /// Whether a certificate of `verifiedChain` (leaf first, anchor last) in the set's scope carries a
    /// pinned key.
    public func matches(verifiedChain: [Certificate]) -> Bool {
        let pinned = Set(pins)
        return Self.candidates(verifiedChain, scope: scope).contains { pinned.contains($0.spkiSHA256) }
    }

    /// The certificates of `chain` in `scope`: index 0 is the leaf, the last one the root (a chain of one
    /// certificate is both), the others intermediates.
    static func candidates(_ chain: [Certificate], scope: Scope) -> [Certificate] {
        chain.indices.filter { index in
            (index == 0 && scope.contains(.leaf))
                || (index == chain.count - 1 && scope.contains(.root))
                || (index > 0 && index < chain.count - 1 && scope.contains(.intermediates))
        }.map { chain[$0] }
    }

    /// The set of `sets` that covers `host`: one for exactly that host, else the one for the closest
    /// parent domain (TrustKit's rule); nil when none covers it.
    public static func set(for host: String, in sets: [PinSet]) -> PinSet? {
        let host = normalise(host)
        if let exact = sets.first(where: { $0.host == host }) { return exact }
        return sets.filter { $0.covers(host: host) }.max { $0.host.count < $1.host.count }
    }

    static func normalise(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
