import Foundation
import FWNetworking
import Testing
import TestSupport

// SecurityPolicy's settings: defaults, initializers, archiving and copying. The verdicts are in
// SecurityPolicy+EvaluationTests.swift.
@Suite struct SecurityPolicyTests {
    private static func pins() throws -> Set<Data> {
        try PolicyRow.der(["valid-ecdsa.pem", "root-ca.pem"])
    }

    @Test func theDefaultPolicyIsThePlatformValidation() {
        let policy = SecurityPolicy.default
        #expect(policy.pinningMode == .none)
        #expect(policy.pinnedCertificates == nil)
        #expect(policy.allowInvalidCertificates == false)
        #expect(policy.validatesDomainName == true)
        #expect(SecurityPolicy.default !== SecurityPolicy.default, "each call makes a new policy")
    }

    @Test(arguments: [SSLPinningMode.none, .publicKey, .certificate])
    func thePinningInitializerKeepsModeAndPins(_ mode: SSLPinningMode) throws {
        let pins = try Self.pins()
        let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: pins)
        #expect(policy.pinningMode == mode)
        #expect(policy.pinnedCertificates == pins)
        #expect(policy.allowInvalidCertificates == false && policy.validatesDomainName == true)
    }

    @Test func theMainBundleInitializerPinsTheMainBundlesCertificates() {
        let policy = SecurityPolicy(pinningMode: .certificate)
        #expect(policy.pinningMode == .certificate)
        #expect(policy.pinnedCertificates == SecurityPolicy.certificates(in: .main))
    }

    @Test func settingsChange() throws {
        let policy = SecurityPolicy.default
        policy.allowInvalidCertificates = true
        policy.validatesDomainName = false
        policy.pinnedCertificates = try Self.pins()
        #expect(policy.allowInvalidCertificates && !policy.validatesDomainName)
        #expect(policy.pinnedCertificates?.count == 2)
        policy.pinnedCertificates = nil
        #expect(policy.pinnedCertificates == nil)
    }

    @Test(arguments: [
        (SSLPinningMode.none, false, true, false),
        (.publicKey, true, false, true),
        (.certificate, true, true, true),
    ])
    func aPolicySurvivesSecureArchiving(_ mode: SSLPinningMode, _ allowInvalid: Bool, _ validatesDomain: Bool,
                                        _ pinned: Bool) throws {
        let policy = pinned ? SecurityPolicy(pinningMode: mode, pinnedCertificates: try Self.pins()) : .default
        policy.allowInvalidCertificates = allowInvalid
        policy.validatesDomainName = validatesDomain
        let archive = try NSKeyedArchiver.archivedData(withRootObject: policy, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: SecurityPolicy.self, from: archive))
        #expect(decoded.pinningMode == policy.pinningMode)
        #expect(decoded.pinnedCertificates == policy.pinnedCertificates)
        #expect(decoded.allowInvalidCertificates == allowInvalid)
        #expect(decoded.validatesDomainName == validatesDomain)
        #expect(SecurityPolicy.supportsSecureCoding)
    }

    @Test func anUnknownPinningModeDoesNotDecode() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(7, forKey: "pinningMode")
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(SecurityPolicy(coder: unarchiver) == nil)
    }

    @Test func aCopyHasTheSameSettingsAndIsIndependent() throws {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try Self.pins())
        policy.allowInvalidCertificates = true
        let copy = try #require(policy.copy() as? SecurityPolicy)
        #expect(copy !== policy)
        let pins = try Self.pins()
        #expect(copy.pinningMode == .publicKey && copy.pinnedCertificates == pins)
        #expect(copy.allowInvalidCertificates && copy.validatesDomainName)
        copy.validatesDomainName = false
        #expect(policy.validatesDomainName)
    }
}
