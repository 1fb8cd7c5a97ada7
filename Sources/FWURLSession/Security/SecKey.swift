// Security's key object and the functions pinning code uses on it, over FWTLS's `PublicKey`. Only
// public keys of certificates exist here (RSA and elliptic curve, the types Security supports), so
// every key is exportable.

import FWTLS
import Foundation

// MARK: - SecKey

/// A certificate's public key (Security's SecKey).
///
/// Equal when the SubjectPublicKeyInfo (algorithm and key) is equal.
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
    /// The FWTLS public key this object wraps.
    let publicKey: PublicKey

    /// `kSecAttrKeyTypeRSA` or `kSecAttrKeyTypeECSECPrimeRandom`.
    let keyType: CFString

    /// Wraps an RSA or elliptic-curve key; nil for any other algorithm.
    init?(publicKey: PublicKey) {
        switch publicKey.algorithm {
        case "RSA": keyType = kSecAttrKeyTypeRSA
        case "EC": keyType = kSecAttrKeyTypeECSECPrimeRandom
        default: return nil
        }
        guard !publicKey.externalRepresentation.isEmpty else { return nil }
        self.publicKey = publicKey
    }

    /// Equal when the SubjectPublicKeyInfo DER is equal.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.publicKey == rhs.publicKey
    }

    /// Hashes the SubjectPublicKeyInfo DER.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(publicKey)
    }

    /// The algorithm, size and SPKI pin.
    public var description: String {
        "<SecKey \(publicKey.algorithm) \(publicKey.bits) bits, \(publicKey.spkiPin)>"
    }
}

// MARK: - Attribute keys and values

/// Attribute key: the key's algorithm (`kSecAttrKeyTypeRSA`, `kSecAttrKeyTypeECSECPrimeRandom`).
public let kSecAttrKeyType: CFString = "type"
/// Attribute key: the key's size in bits, an Int (2048 for RSA-2048, 256 for P-256).
public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// Attribute key: the key's class (`kSecAttrKeyClassPublic` for every key here).
public let kSecAttrKeyClass: CFString = "kcls"
/// Key type value: RSA.
public let kSecAttrKeyTypeRSA: CFString = "42"
/// Key type value: elliptic curve over a prime field (P-256, P-384, P-521).
public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// Key type value: elliptic curve, the older name of `kSecAttrKeyTypeECSECPrimeRandom`.
public let kSecAttrKeyTypeEC: CFString = "73"
/// Key class value: a public key.
public let kSecAttrKeyClassPublic: CFString = "0"

// MARK: - Functions

/// The key as Apple exports it: PKCS#1 RSAPublicKey for RSA, the ANSI X9.63 uncompressed point
/// 04 || X || Y for elliptic curve (the SubjectPublicKeyInfo's key bits, without the algorithm).
///
/// Never fails here (every key is a certificate's exportable public key), so `error` is left alone.
public func SecKeyCopyExternalRepresentation(
    _ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    NSData(data: Data(key.publicKey.externalRepresentation))
}

/// The key's attributes: `kSecAttrKeyType`, `kSecAttrKeySizeInBits` and `kSecAttrKeyClass`.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    let attributes: [String: Any] = [
        kSecAttrKeyType: key.keyType,
        kSecAttrKeySizeInBits: key.publicKey.bits,
        kSecAttrKeyClass: kSecAttrKeyClassPublic,
    ]
    return NSDictionary(dictionary: attributes)
}
