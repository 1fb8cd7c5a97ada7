// Security's SecTrust... functions, with Apple's names, signatures and results.

import FWTLS
import Foundation

// MARK: - Creating

/// Creates a trust over `certificates` (one SecCertificate, or an array of them, leaf first) and
/// `policies` (one SecPolicy, an array of them, or nil for the basic X.509 policy), anchored in the
/// system store. Returns `errSecParam` when an element has the wrong type or there is no certificate.
public func SecTrustCreateWithCertificates(
    _ certificates: CFTypeRef, _ policies: CFTypeRef?, _ trust: UnsafeMutablePointer<SecTrust?>
) -> OSStatus {
    guard let certificates = SecObjects.list(certificates, of: SecCertificate.self), !certificates.isEmpty else {
        return errSecParam
    }
    var policyList = [SecPolicy.basicX509]
    if let policies {
        guard let list = SecObjects.list(policies, of: SecPolicy.self) else { return errSecParam }
        policyList = list
    }
    trust.pointee = SecTrust(certificates: certificates.map(\.certificate), policies: policyList)
    return errSecSuccess
}

// MARK: - Evaluating

/// Evaluates the trust against its anchors and policies. On failure, `error` (when given) receives an
/// NSError in NSOSStatusErrorDomain whose code is the OSStatus Apple reports: `errSecCertificateExpired`,
/// `errSecCertificateNotValidYet`, `errSecHostNameMismatch`, `errSecCertificateRevoked`, or
/// `errSecNotTrusted`; the FWTLS `TrustError` is under `NSUnderlyingErrorKey`.
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    do {
        try trust.evaluate()
        error?.pointee = nil
        return true
    } catch let failure {
        let leaf = trust.serverTrust.certificateChain.first?.subjectSummary ?? "no certificate"
        error?.pointee = NSError.security(
            failure.osStatus, "“\(leaf)” certificate is not trusted: \(failure.reason)", underlying: failure
        )
        return false
    }
}

/// The outcome of `SecTrustEvaluate`, with Apple's raw values.
public enum SecTrustResultType: UInt32, Sendable {
    /// Not evaluated.
    case invalid = 0
    /// The user chose to trust the chain (never reported here: there are no user trust settings).
    case proceed = 1
    /// The user chose not to trust the chain (never reported here).
    case deny = 3
    /// Trusted, with the default trust settings.
    case unspecified = 4
    /// Not trusted, for a reason the caller may work around (expiry, host name, unknown root).
    case recoverableTrustFailure = 5
    /// Not trusted, and no setting can change that (a revoked certificate).
    case fatalTrustFailure = 6
    /// Evaluation failed for another reason.
    case otherError = 7
}

/// Evaluates the trust (the older API `SecTrustEvaluateWithError` replaced): `result` becomes
/// `.unspecified` when trusted, `.fatalTrustFailure` for a revoked certificate, and
/// `.recoverableTrustFailure` for any other failure. Returns `errSecSuccess`: the evaluation itself ran.
public func SecTrustEvaluate(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    do {
        try trust.evaluate()
        result.pointee = .unspecified
    } catch {
        result.pointee = error.isRevoked ? .fatalTrustFailure : .recoverableTrustFailure
    }
    return errSecSuccess
}

// MARK: - Chain and key

/// The number of certificates in the evaluated chain (see `SecTrustCopyCertificateChain`).
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex {
    trust.evaluatedChain.count
}

/// The evaluated chain, leaf first: the certificates the trust was made with, followed by the custom
/// anchor that issued the last of them (when there is one); nil when the trust has no certificate.
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    let chain = trust.evaluatedChain
    guard !chain.isEmpty else { return nil }
    return NSArray(array: chain.map(SecCertificate.init(certificate:)))
}

/// The certificate at `ix` of the evaluated chain (0 is the leaf), or nil when out of range.
public func SecTrustGetCertificateAtIndex(_ trust: SecTrust, _ ix: CFIndex) -> SecCertificate? {
    let chain = trust.evaluatedChain
    guard chain.indices.contains(ix) else { return nil }
    return SecCertificate(certificate: chain[ix])
}

/// The leaf certificate's public key, or nil when there is no leaf or its key is neither RSA nor EC.
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? {
    trust.serverTrust.certificateChain.first.flatMap { SecKey(publicKey: $0.publicKey) }
}

/// The leaf certificate's public key (the name `SecTrustCopyKey` replaced).
public func SecTrustCopyPublicKey(_ trust: SecTrust) -> SecKey? {
    SecTrustCopyKey(trust)
}

// MARK: - Configuring

/// Makes `anchorCertificates` (an array of SecCertificate) the only anchors; call
/// `SecTrustSetAnchorCertificatesOnly(trust, false)` afterwards to trust the default anchors too. nil
/// restores the default anchors. Returns `errSecParam` when an element is not a certificate.
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    guard let anchorCertificates else {
        trust.setAnchorCertificates(nil)
        return errSecSuccess
    }
    guard let anchors = SecObjects.list(anchorCertificates, of: SecCertificate.self) else { return errSecParam }
    trust.setAnchorCertificates(anchors.map(\.certificate))
    return errSecSuccess
}

/// true: trust only the anchors given to `SecTrustSetAnchorCertificates`; false: trust the default
/// anchors (the system's, or the session's configured roots) as well.
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.setAnchorCertificatesOnly(anchorCertificatesOnly)
    return errSecSuccess
}

/// Replaces the policies with `policies` (one SecPolicy or an array of them). Returns `errSecParam`
/// when an element is not a policy.
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus {
    guard let list = SecObjects.list(policies, of: SecPolicy.self) else { return errSecParam }
    trust.setPolicies(list)
    return errSecSuccess
}

// MARK: - Arguments

/// Reads Security's "one object or an array of them" arguments.
enum SecObjects {
    /// `[value]` when it is a `T`, its elements when it is an array of `T`, nil otherwise.
    static func list<T>(_ value: AnyObject, of type: T.Type) -> [T]? {
        if let single = value as? T { return [single] }
        guard let array = value as? NSArray else { return nil }
        var result: [T] = []
        for element in array {
            guard let typed = element as? T else { return nil }
            result.append(typed)
        }
        return result
    }
}
