import Foundation
import FWTLS
@testable import FWURLSession
import Testing

@Suite struct SecBaseTests {
    @Test func statusCodesHaveApplesValues() {
        #expect([errSecSuccess, errSecParam, errSecAuthFailed, errSecDecode] == [0, -50, -25293, -26275])
        #expect([errSecHostNameMismatch, errSecCertificateExpired, errSecCertificateNotValidYet,
                 errSecCertificateRevoked, errSecNotTrusted] == [-67602, -67818, -67819, -67820, -67843])
    }

    @Test(arguments: [
        (TrustError.expired(reason: "r"), errSecCertificateExpired),
        (TrustError.notYetValid(reason: "r"), errSecCertificateNotValidYet),
        (TrustError.hostnameMismatch(reason: "r"), errSecHostNameMismatch),
        (TrustError.revoked(reason: "r"), errSecCertificateRevoked),
        (TrustError.unknownRoot(reason: "r"), errSecNotTrusted),
        (TrustError.untrusted(reason: "r"), errSecNotTrusted),
        (TrustError.pinMismatch(reason: "r"), errSecNotTrusted),
    ])
    func trustErrorsMapToApplesStatus(_ error: TrustError, _ status: OSStatus) {
        #expect(error.osStatus == status)
    }

    @Test func errorsAreOSStatusErrors() {
        let underlying = TrustError.expired(reason: "depth 0")
        let error = NSError.security(errSecCertificateExpired, "expired", underlying: underlying)
        #expect(error.domain == NSOSStatusErrorDomain)
        #expect(error.code == Int(errSecCertificateExpired))
        #expect(error.localizedDescription == "expired")
        #expect(error.userInfo[NSUnderlyingErrorKey] as? TrustError == underlying)
        #expect(NSError.security(errSecParam, "bad").userInfo[NSUnderlyingErrorKey] == nil)
    }
}
