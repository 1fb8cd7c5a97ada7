// Security's result codes, with the values Apple's SecBase.h gives them, and the errors the Security
// functions report: NSErrors in NSOSStatusErrorDomain whose code is the OSStatus, as on Apple platforms.

import FWTLS
import Foundation

// MARK: - OSStatus

/// A Security result code: `errSecSuccess` (0) or a negative error.
public typealias OSStatus = Int32

/// No error.
public let errSecSuccess: OSStatus = 0
/// One or more parameters passed to the function are not valid.
public let errSecParam: OSStatus = -50
/// The user name or passphrase you entered is not correct (a PKCS#12 password that does not verify).
public let errSecAuthFailed: OSStatus = -25293
/// Unable to decode the provided data.
public let errSecDecode: OSStatus = -26275
/// A host name mismatch has occurred.
public let errSecHostNameMismatch: OSStatus = -67602
/// An expired certificate was detected.
public let errSecCertificateExpired: OSStatus = -67818
/// The certificate is not yet valid.
public let errSecCertificateNotValidYet: OSStatus = -67819
/// The certificate was revoked.
public let errSecCertificateRevoked: OSStatus = -67820
/// The certificate was not trusted.
public let errSecNotTrusted: OSStatus = -67843

// MARK: - Errors

extension NSError {
    /// A Security error: NSOSStatusErrorDomain, `status` as the code, `description` for people, and the
    /// FWTLS error that caused it, if any, under NSUnderlyingErrorKey.
    static func security(_ status: OSStatus, _ description: String, underlying: (any Error)? = nil) -> NSError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: userInfo)
    }
}

extension TrustError {
    /// The status Apple's trust evaluation reports for the same failure.
    var osStatus: OSStatus {
        if isExpired { return errSecCertificateExpired }
        if isNotYetValid { return errSecCertificateNotValidYet }
        if isHostnameMismatch { return errSecHostNameMismatch }
        if isRevoked { return errSecCertificateRevoked }
        return errSecNotTrusted
    }
}
