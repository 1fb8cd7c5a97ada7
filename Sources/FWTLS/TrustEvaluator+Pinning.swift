// MARK: - PinnedCertificatesTrustEvaluator

/// Trusts a server when a certificate of its chain is one of the pinned certificates (compared by DER),
/// after the default validation unless told otherwise.
public struct PinnedCertificatesTrustEvaluator: TrustEvaluator {
    /// The pinned certificates.
    public let certificates: [Certificate]
    /// Whether the pinned certificates become the anchors (so a pinned self-signed leaf validates).
    public let acceptSelfSignedCertificates: Bool
    /// Whether the chain must also validate against the anchors.
    public let performDefaultValidation: Bool
    /// Whether the leaf must identify the host.
    public let validateHost: Bool

    private let pinnedAnchors: TrustRoots

    /// An evaluator pinning `certificates`.
    public init(
        certificates: [Certificate],
        acceptSelfSignedCertificates: Bool = false,
        performDefaultValidation: Bool = true,
        validateHost: Bool = true
    ) {
        self.certificates = certificates
        self.acceptSelfSignedCertificates = acceptSelfSignedCertificates
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.pinnedAnchors = .certificates(certificates)
    }

    /// Validates (as configured), then requires a pinned certificate in the chain.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        guard !certificates.isEmpty else { throw TrustError.pinMismatch(reason: "no certificates are pinned") }
        var trust = trust
        if acceptSelfSignedCertificates { trust.anchors = pinnedAnchors }
        try trust.performValidation(defaultValidation: performDefaultValidation, validateHost: validateHost)
        let pinned = Set(certificates)
        guard trust.certificateChain.contains(where: pinned.contains) else {
            let chain = trust.certificateChain.map(\.subjectSummary).joined(separator: ", ")
            throw TrustError.pinMismatch(reason: "no pinned certificate in the chain of \(trust.host) (\(chain))")
        }
    }
}

// MARK: - PublicKeysTrustEvaluator

/// Trusts a server when the public key of a certificate of its chain is one of the pinned keys, after
/// the default validation unless told otherwise.
public struct PublicKeysTrustEvaluator: TrustEvaluator {
    /// The pinned keys.
    public let keys: [PublicKey]
    /// Whether the chain must also validate against the anchors.
    public let performDefaultValidation: Bool
    /// Whether the leaf must identify the host.
    public let validateHost: Bool

    /// An evaluator pinning `keys` (e.g. `certificates.map(\.publicKey)`).
    public init(keys: [PublicKey], performDefaultValidation: Bool = true, validateHost: Bool = true) {
        self.keys = keys
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
    }

    /// Validates (as configured), then requires a pinned key in the chain.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        guard !keys.isEmpty else { throw TrustError.pinMismatch(reason: "no public keys are pinned") }
        try trust.performValidation(defaultValidation: performDefaultValidation, validateHost: validateHost)
        let pinned = Set(keys)
        guard trust.certificateChain.contains(where: { pinned.contains($0.publicKey) }) else {
            let found = trust.certificateChain.map(\.spkiPin).joined(separator: ", ")
            throw TrustError.pinMismatch(reason: "no pinned public key in the chain of \(trust.host) (\(found))")
        }
    }
}

// MARK: - SPKIPinsTrustEvaluator

/// Trusts a server when the SHA-256 of a SubjectPublicKeyInfo in its chain is one of the pins, curl's
/// `--pinnedpubkey "sha256//BASE64;sha256//BASE64"` with backup pins: any match passes.
public struct SPKIPinsTrustEvaluator: TrustEvaluator {
    /// The pinned SPKI SHA-256 hashes (32 bytes each).
    public let pins: [[UInt8]]
    /// Whether only the leaf's key counts (curl's behaviour) instead of any key in the chain.
    public let matchesLeafOnly: Bool
    /// Whether the chain must also validate against the anchors.
    public let performDefaultValidation: Bool
    /// Whether the leaf must identify the host.
    public let validateHost: Bool

    /// An evaluator from pin text: `sha256//BASE64` entries separated by `;`. Throws
    /// `TrustError.invalidPin` for an entry that is not `sha256//` + base64 of 32 bytes.
    public init(
        pins: String,
        matchesLeafOnly: Bool = false,
        performDefaultValidation: Bool = true,
        validateHost: Bool = true
    ) throws(TrustError) {
        self.init(
            hashes: try Self.parse(pins),
            matchesLeafOnly: matchesLeafOnly,
            performDefaultValidation: performDefaultValidation,
            validateHost: validateHost
        )
    }

    /// An evaluator from raw SHA-256 hashes of SubjectPublicKeyInfo DER.
    public init(
        hashes: [[UInt8]],
        matchesLeafOnly: Bool = false,
        performDefaultValidation: Bool = true,
        validateHost: Bool = true
    ) {
        self.pins = hashes
        self.matchesLeafOnly = matchesLeafOnly
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
    }

    /// The hashes of pin text `sha256//BASE64[;sha256//BASE64...]` (spaces around entries are ignored).
    public static func parse(_ text: String) throws(TrustError) -> [[UInt8]] {
        let prefix = "sha256//"
        var hashes: [[UInt8]] = []
        for entry in text.split(separator: ";", omittingEmptySubsequences: false) {
            var pin = entry
            while pin.first == " " || pin.first == "\t" { pin.removeFirst() }
            while pin.last == " " || pin.last == "\t" { pin.removeLast() }
            guard pin.hasPrefix(prefix), let hash = Base64.decode(String(pin.dropFirst(prefix.count))),
                hash.count == 32
            else {
                throw TrustError.invalidPin(reason: "not sha256// + base64 of 32 bytes: \"\(pin)\"")
            }
            hashes.append(hash)
        }
        return hashes
    }

    /// Validates (as configured), then requires a pinned SPKI hash in the chain (or the leaf).
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        guard !pins.isEmpty else { throw TrustError.pinMismatch(reason: "no SPKI hashes are pinned") }
        try trust.performValidation(defaultValidation: performDefaultValidation, validateHost: validateHost)
        let candidates = matchesLeafOnly ? Array(trust.certificateChain.prefix(1)) : trust.certificateChain
        let pinned = Set(pins)
        guard candidates.contains(where: { pinned.contains($0.spkiSHA256) }) else {
            let found = candidates.map(\.spkiPin).joined(separator: ";")
            throw TrustError.pinMismatch(reason: "no SPKI pin matches \(trust.host) (server keys: \(found))")
        }
    }
}
