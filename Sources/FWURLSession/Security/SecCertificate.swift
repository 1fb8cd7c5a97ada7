// Security's certificate object and functions, over FWTLS's `Certificate` (a value over DER bytes).

import FWTLS
import Foundation

// MARK: - SecCertificate

/// An X.509 certificate (Security's SecCertificate), immutable.
///
/// Equal when the DER encodings are equal, as Apple's CFEqual compares certificates.
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    /// The FWTLS certificate this object wraps (an FWNetworking addition).
    public let certificate: Certificate

    /// Wraps an FWTLS certificate (an FWNetworking addition; Apple code uses
    /// `SecCertificateCreateWithData`).
    public init(certificate: Certificate) {
        self.certificate = certificate
    }

    /// Equal when the DER encodings are equal.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool {
        lhs.certificate == rhs.certificate
    }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificate)
    }

    /// The subject, issuer and validity in one line.
    public var description: String {
        "<SecCertificate \(certificate.subjectSummary)>"
    }
}

// MARK: - Functions

/// A certificate from its DER encoding, or nil when `data` is not exactly one DER certificate (PEM text
/// is refused, as on Apple platforms).
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    guard let certificate = try? Certificate(derBytes: [UInt8](Data(referencing: data))) else { return nil }
    return SecCertificate(certificate: certificate)
}

/// The DER encoding of a certificate.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    NSData(data: Data(certificate.certificate.derBytes))
}

/// A short name for people: the subject's common name, else its first subjectAltName, else the whole
/// subject.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.certificate.subjectSummary
}

/// The certificate's public key, or nil when its algorithm is neither RSA nor elliptic curve (what
/// Security supports).
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    SecKey(publicKey: certificate.certificate.publicKey)
}
