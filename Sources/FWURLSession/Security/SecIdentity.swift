// Security's identity object (a certificate with its private key, for mutual TLS) over FWTLS's
// `TLSIdentity`, and the two ways Apple code gets one: SecPKCS12Import, or (an FWNetworking addition
// for PEM files) `SecIdentity(tlsIdentity:)`.

@_exported import struct FWTLS.TLSIdentity
import Foundation

// MARK: - SecIdentity

/// A client identity: a certificate, the private key that belongs to it, and the intermediates to send
/// with it (Security's SecIdentity). Equal when the certificates are equal.
public final class SecIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The FWTLS identity this object wraps.
    let tlsIdentity: TLSIdentity

    /// Wraps an FWTLS identity, e.g. one read from PEM files with
    /// `TLSIdentity(certificateChainPEMFile:privateKeyPEMFile:password:)` (an FWNetworking addition).
    public init(tlsIdentity: TLSIdentity) {
        self.tlsIdentity = tlsIdentity
    }

    /// Equal when the certificates are equal.
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.tlsIdentity.certificate == rhs.tlsIdentity.certificate
    }

    /// Hashes the certificate.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tlsIdentity.certificate)
    }

    /// The certificate's subject.
    public var description: String {
        "<SecIdentity \(tlsIdentity.certificate.subjectSummary)>"
    }
}

// MARK: - Functions

/// Stores the identity's certificate in `certificateRef`.
public func SecIdentityCopyCertificate(
    _ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>
) -> OSStatus {
    certificateRef.pointee = SecCertificate(certificate: identityRef.tlsIdentity.certificate)
    return errSecSuccess
}

// MARK: - PKCS#12

/// Option key of `SecPKCS12Import`: the password, a String.
public let kSecImportExportPassphrase: CFString = "passphrase"
/// Item key of `SecPKCS12Import`'s result: the SecIdentity.
public let kSecImportItemIdentity: CFString = "identity"
/// Item key of `SecPKCS12Import`'s result: the certificates, leaf first, an array of SecCertificate.
public let kSecImportItemCertChain: CFString = "chain"
/// Item key of `SecPKCS12Import`'s result: a SecTrust over the chain with the basic X.509 policy.
public let kSecImportItemTrust: CFString = "trust"
/// Item key of `SecPKCS12Import`'s result: the certificate's subject summary, a String.
public let kSecImportItemLabel: CFString = "label"

/// Decodes a PKCS#12 blob with the password under `kSecImportExportPassphrase` (none: empty) and stores
/// in `items` an array of one dictionary with `kSecImportItemIdentity`, `kSecImportItemCertChain`,
/// `kSecImportItemTrust` and `kSecImportItemLabel`. Returns `errSecAuthFailed` for a wrong password and
/// `errSecDecode` for a blob that is not a PKCS#12 with one key and its certificate.
public func SecPKCS12Import(
    _ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
    let password = (options as? [String: Any])?[kSecImportExportPassphrase] as? String ?? ""
    let identity: TLSIdentity
    do {
        identity = try TLSIdentity(pkcs12: [UInt8](Data(referencing: pkcs12_data)), password: password)
    } catch {
        return error.isWrongPassword ? errSecAuthFailed : errSecDecode
    }
    let chain = [identity.certificate] + identity.intermediates
    let item: [String: Any] = [
        kSecImportItemIdentity: SecIdentity(tlsIdentity: identity),
        kSecImportItemCertChain: NSArray(array: chain.map(SecCertificate.init(certificate:))),
        kSecImportItemTrust: SecTrust(certificates: chain, policies: [.basicX509]),
        kSecImportItemLabel: identity.certificate.subjectSummary,
    ]
    items.pointee = NSArray(array: [NSDictionary(dictionary: item)])
    return errSecSuccess
}
