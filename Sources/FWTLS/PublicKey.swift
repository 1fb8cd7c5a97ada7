// MARK: - PublicKey

/// A certificate's public key, as pinned by `PublicKeysTrustEvaluator` and SPKI pins.
///
/// Equality and hashing use the SubjectPublicKeyInfo DER (algorithm and key), so an RSA and an EC key
/// never compare equal even if their raw bytes did.
public struct PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The DER of the SubjectPublicKeyInfo (algorithm identifier + key).
    public let spkiDER: [UInt8]

    /// The key without its algorithm: PKCS#1 RSAPublicKey for RSA, the X9.63 point (04 || X || Y) for
    /// EC; what Security's SecKeyCopyExternalRepresentation returns.
    public let externalRepresentation: [UInt8]

    /// The algorithm: "RSA", "EC", "ED25519", ...
    public let algorithm: String

    /// The key size in bits (2048 for RSA-2048, 256 for P-256).
    public let bits: Int

    init(spkiDER: [UInt8], externalRepresentation: [UInt8], algorithm: String, bits: Int) {
        self.spkiDER = spkiDER
        self.externalRepresentation = externalRepresentation
        self.algorithm = algorithm
        self.bits = bits
    }

    /// SHA-256 of the SubjectPublicKeyInfo DER (32 bytes).
    public var spkiSHA256: [UInt8] { Digest.sha256.hash(spkiDER) }

    /// The pin in curl's `--pinnedpubkey` form: "sha256//" + base64 of `spkiSHA256`.
    public var spkiPin: String { "sha256//" + Base64.encode(spkiSHA256) }

    /// Equal when the SubjectPublicKeyInfo DER is equal.
    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
        lhs.spkiDER == rhs.spkiDER
    }

    /// Hashes the SubjectPublicKeyInfo DER.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(spkiDER)
    }

    /// The algorithm, size and pin.
    public var description: String {
        "PublicKey(\(algorithm) \(bits) bits, \(spkiPin))"
    }
}
