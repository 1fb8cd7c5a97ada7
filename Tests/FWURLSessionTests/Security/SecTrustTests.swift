import Foundation
import FWTLS
@testable import FWURLSession
import Testing

// The SecTrust object itself: what the session layer reads from it, OCSP staples, thread safety.
@Suite struct SecTrustTests {
    static func connectionTrust(_ leaf: String, host: String = "localhost", staple: String? = nil) throws -> SecTrust {
        SecTrust(serverTrust: ServerTrust(
            certificateChain: try SecurityFixtures.chain(leaf).map(\.certificate), host: host,
            anchors: .certificates([try SecurityFixtures.root().certificate]),
            stapledOCSPResponse: try staple.map { [UInt8](try SecurityFixtures.data($0)) }
        ))
    }

    /// Why `trust` fails, or nil when it is trusted.
    static func failure(of trust: SecTrust) -> TrustError? {
        do {
            try trust.evaluate()
            return nil
        } catch {
            return error
        }
    }

    @Test func aConnectionTrustChecksItsHostAgainstItsAnchors() throws {
        let trust = try Self.connectionTrust("valid-rsa.pem", host: "127.0.0.1")
        #expect(trust.serverTrust.host == "127.0.0.1")
        #expect(trust.serverTrust.anchors.certificates == [try SecurityFixtures.root().certificate])
        #expect(trust.serverTrust.certificateChain == (try SecurityFixtures.chain("valid-rsa.pem").map(\.certificate)))
        try trust.evaluate()

        let mismatch = try Self.connectionTrust("valid-rsa.pem", host: "example.com")
        #expect(Self.failure(of: mismatch)?.isHostnameMismatch == true)
    }

    @Test func theServerTrustReflectsTheUsersPoliciesAndAnchors() throws {
        let trust = try Self.connectionTrust("wrong-host.pem")
        let unknownRoot = try SecurityFixtures.certificate("unknown-root-ca.pem")
        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "wrong.fw.test" as CFString)) == errSecSuccess)
        #expect(SecTrustSetAnchorCertificates(trust, [unknownRoot] as CFArray) == errSecSuccess)

        #expect(trust.serverTrust.host == "wrong.fw.test")
        #expect(trust.serverTrust.anchors.certificates == [unknownRoot.certificate])
        #expect(!trust.serverTrust.anchors.includesSystemRoots)
        #expect(Self.failure(of: trust)?.isUnknownRoot == true)

        #expect(SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess)
        #expect(trust.serverTrust.anchors.certificates.count == 2)
        try trust.evaluate()

        #expect(SecTrustSetPolicies(trust, SecPolicyCreateBasicX509()) == errSecSuccess)
        #expect(trust.serverTrust.host == "localhost", "without a named host the connection's host stays")
    }

    @Test(arguments: [
        ("revoked.pem", "ocsp-revoked.der", errSecCertificateRevoked),
        ("valid-ecdsa.pem", "ocsp-valid-ecdsa-good.der", errSecSuccess),
        ("valid-ecdsa.pem", "ocsp-revoked.der", errSecSuccess),
    ])
    func aStapledRevocationFailsTheEvaluation(_ leaf: String, _ staple: String, _ status: OSStatus) throws {
        let trust = try Self.connectionTrust(leaf, staple: staple)
        #expect(SecTrustFunctionsTests.evaluate(trust) == status)

        var result = SecTrustResultType.invalid
        #expect(SecTrustEvaluate(trust, &result) == errSecSuccess)
        #expect(result == (status == errSecSuccess ? .unspecified : .fatalTrustFailure))
    }

    @Test func describesItself() throws {
        let trust = try Self.connectionTrust("valid-rsa.pem")
        #expect(trust.description.contains("2 certificates"))
        #expect(trust.description.contains("host localhost"))
    }

    @Test func concurrentSettingAndEvaluatingIsSafe() throws {
        let trust = try Self.connectionTrust("valid-ecdsa.pem")
        let unknownRoot = try SecurityFixtures.certificate("unknown-root-ca.pem")
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            switch index % 4 {
            case 0: _ = SecTrustSetAnchorCertificates(trust, [unknownRoot] as CFArray)
            case 1: _ = SecTrustSetAnchorCertificatesOnly(trust, false)
            case 2: _ = SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "localhost" as CFString))
            default: _ = SecTrustEvaluateWithError(trust, nil)
            }
        }
        #expect(SecTrustSetAnchorCertificates(trust, nil) == errSecSuccess)
        #expect(SecTrustEvaluateWithError(trust, nil))
    }
}
