import Foundation
import FWTLS
@testable import FWURLSession
import Testing

// The public SecTrust... functions against the fixtures, written as Apple code calls them.
@Suite struct SecTrustFunctionsTests {
    // MARK: Evaluation

    enum PolicyChoice: Sendable, CustomStringConvertible {
        case ssl(String?)
        case basicX509
        case none

        var policy: SecPolicy? {
            switch self {
            case .ssl(let host): SecPolicyCreateSSL(true, host as CFString?)
            case .basicX509: SecPolicyCreateBasicX509()
            case .none: nil
            }
        }

        var description: String {
            switch self {
            case .ssl(let host): "SSL(\(host ?? "no host"))"
            case .basicX509: "BasicX509"
            case .none: "no policy"
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let files: [String]
        let policy: PolicyChoice
        let status: OSStatus
        var testDescription: String { "\(files.joined(separator: "+")) \(policy) -> \(status)" }
    }

    static let rows: [Row] = [
        Row(files: ["valid-rsa.pem", "intermediate-ca.pem"], policy: .ssl("localhost"), status: errSecSuccess),
        Row(files: ["valid-ecdsa.pem", "intermediate-ca.pem"], policy: .ssl("LOCALHOST."), status: errSecSuccess),
        Row(files: ["valid-ecdsa.pem", "intermediate-ca.pem"], policy: .ssl("127.0.0.1"), status: errSecSuccess),
        Row(files: ["valid-ecdsa.pem", "intermediate-ca.pem"], policy: .ssl("::1"), status: errSecSuccess),
        Row(files: ["ip-only.pem", "intermediate-ca.pem"], policy: .ssl("localhost"), status: errSecHostNameMismatch),
        Row(files: ["wildcard.pem", "intermediate-ca.pem"], policy: .ssl("api.fw.test"), status: errSecSuccess),
        Row(files: ["wildcard.pem", "intermediate-ca.pem"], policy: .ssl("fw.test"), status: errSecHostNameMismatch),
        Row(files: ["wrong-host.pem", "intermediate-ca.pem"], policy: .ssl("localhost"),
            status: errSecHostNameMismatch),
        Row(files: ["wrong-host.pem", "intermediate-ca.pem"], policy: .ssl("wrong.fw.test"), status: errSecSuccess),
        Row(files: ["wrong-host.pem", "intermediate-ca.pem"], policy: .ssl(nil), status: errSecSuccess),
        Row(files: ["wrong-host.pem", "intermediate-ca.pem"], policy: .basicX509, status: errSecSuccess),
        Row(files: ["wrong-host.pem", "intermediate-ca.pem"], policy: .none, status: errSecSuccess),
        Row(files: ["expired.pem", "intermediate-ca.pem"], policy: .ssl("localhost"), status: errSecCertificateExpired),
        Row(files: ["expired.pem", "intermediate-ca.pem"], policy: .basicX509, status: errSecCertificateExpired),
        Row(files: ["not-yet-valid.pem", "intermediate-ca.pem"], policy: .ssl("localhost"),
            status: errSecCertificateNotValidYet),
        Row(files: ["unknown-root-leaf.pem", "unknown-root-ca.pem"], policy: .ssl("localhost"),
            status: errSecNotTrusted),
        Row(files: ["unknown-root-leaf.pem"], policy: .basicX509, status: errSecNotTrusted),
        Row(files: ["self-signed.pem"], policy: .ssl("localhost"), status: errSecNotTrusted),
        Row(files: ["valid-ecdsa.pem"], policy: .ssl("localhost"), status: errSecNotTrusted),
        Row(files: ["revoked.pem", "intermediate-ca.pem"], policy: .ssl("localhost"), status: errSecSuccess),
    ]

    /// Creates the trust as Apple code does and evaluates it; returns the status of the error (0: trusted).
    static func evaluate(_ trust: SecTrust) -> OSStatus {
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust, &error)
        #expect(trusted == (error == nil))
        return trusted ? errSecSuccess : OSStatus(CFErrorGetCode(error))
    }

    @Test(arguments: rows)
    func evaluatesAgainstTheFixtureRoot(_ row: Row) throws {
        let certificates = try row.files.map(SecurityFixtures.certificate)
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates(certificates as CFArray, row.policy.policy, &trust) == errSecSuccess)
        let created = try #require(trust)
        #expect(SecTrustSetAnchorCertificates(created, [try SecurityFixtures.root()] as CFArray) == errSecSuccess)

        #expect(Self.evaluate(created) == row.status)

        var result = SecTrustResultType.invalid
        #expect(SecTrustEvaluate(created, &result) == errSecSuccess)
        #expect(result == (row.status == errSecSuccess ? .unspecified : .recoverableTrustFailure))
    }

    @Test func trustResultRawValuesAreApples() {
        let results: [SecTrustResultType] = [
            .invalid, .proceed, .deny, .unspecified, .recoverableTrustFailure, .fatalTrustFailure, .otherError,
        ]
        #expect(results.map(\.rawValue) == [0, 1, 3, 4, 5, 6, 7])
    }

    @Test func theErrorIsAnOSStatusErrorWithTheTrustErrorUnderneath() throws {
        let trust = try SecurityFixtures.trust(try SecurityFixtures.chain("wrong-host.pem"),
                                               policy: SecPolicyCreateSSL(true, "localhost" as CFString))
        var error: CFError?
        #expect(!SecTrustEvaluateWithError(trust, &error))

        let failure = try #require(error)
        #expect(failure.domain == NSOSStatusErrorDomain)
        #expect(CFErrorGetCode(failure) == CFIndex(errSecHostNameMismatch))
        #expect(failure.localizedDescription.hasPrefix("“wrong.fw.test” certificate is not trusted"))
        let underlying = try #require(failure.userInfo[NSUnderlyingErrorKey] as? TrustError)
        #expect(underlying.isHostnameMismatch)
    }

    @Test func successClearsAStaleErrorAndANilPointerIsFine() throws {
        let trust = try SecurityFixtures.trust(try SecurityFixtures.chain("valid-rsa.pem"),
                                               policy: SecPolicyCreateSSL(true, "localhost" as CFString))
        var error: CFError? = NSError(domain: "stale", code: 1)
        #expect(SecTrustEvaluateWithError(trust, &error))
        #expect(error == nil)
        #expect(SecTrustEvaluateWithError(trust, nil))
    }

    @Test func withoutCustomAnchorsTheSystemStoreDoesNotKnowTheFixtureRoot() throws {
        var trust: SecTrust?
        let chain = try SecurityFixtures.chain("valid-rsa.pem")
        #expect(SecTrustCreateWithCertificates(chain as CFArray, SecPolicyCreateBasicX509(), &trust) == errSecSuccess)
        #expect(Self.evaluate(try #require(trust)) == errSecNotTrusted)
    }

    // MARK: Anchors

    @Test func anchorsFollowApplesRules() throws {
        let unknownRoot = try SecurityFixtures.certificate("unknown-root-ca.pem")
        let fixtureRoots = TrustRoots.certificates([try SecurityFixtures.root().certificate])
        func trust(_ leaf: String, issuer: String) throws -> SecTrust {
            let chain = [try SecurityFixtures.certificate(leaf), try SecurityFixtures.certificate(issuer)]
            return SecTrust(serverTrust: ServerTrust(
                certificateChain: chain.map(\.certificate), host: "localhost", anchors: fixtureRoots
            ))
        }
        let known = try trust("valid-rsa.pem", issuer: "intermediate-ca.pem")
        let unknown = try trust("unknown-root-leaf.pem", issuer: "unknown-root-ca.pem")
        func outcomes() -> [OSStatus] { [Self.evaluate(known), Self.evaluate(unknown)] }

        #expect(outcomes() == [errSecSuccess, errSecNotTrusted], "the session's roots by default")
        for trust in [known, unknown] {
            #expect(SecTrustSetAnchorCertificates(trust, [unknownRoot] as CFArray) == errSecSuccess)
        }
        #expect(outcomes() == [errSecNotTrusted, errSecSuccess], "custom anchors only")
        for trust in [known, unknown] {
            #expect(SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess)
        }
        #expect(outcomes() == [errSecSuccess, errSecSuccess], "custom anchors plus the defaults")
        for trust in [known, unknown] {
            #expect(SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess)
        }
        #expect(outcomes() == [errSecNotTrusted, errSecSuccess], "custom anchors only again")
        for trust in [known, unknown] {
            #expect(SecTrustSetAnchorCertificates(trust, nil) == errSecSuccess)
        }
        #expect(outcomes() == [errSecSuccess, errSecNotTrusted], "nil restores the defaults")
        for trust in [known, unknown] {
            #expect(SecTrustSetAnchorCertificates(trust, [] as CFArray) == errSecSuccess)
        }
        #expect(outcomes() == [errSecNotTrusted, errSecNotTrusted], "an empty array trusts nothing")
        for trust in [known, unknown] {
            #expect(SecTrustSetAnchorCertificates(trust, nil) == errSecSuccess)
            #expect(SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess)
        }
        #expect(outcomes() == [errSecNotTrusted, errSecNotTrusted], "anchors-only without anchors trusts nothing")
    }

    @Test(arguments: [
        ("self-signed.pem", ["self-signed.pem"], "a self-signed leaf as its own anchor"),
        ("valid-ecdsa.pem", ["intermediate-ca.pem"], "an intermediate as the anchor"),
        ("valid-ecdsa.pem", ["valid-ecdsa.pem"], "the leaf itself as the anchor"),
        ("unknown-root-leaf.pem", ["unknown-root-ca.pem", "root-ca.pem"], "one of several anchors"),
    ])
    func anyCertificateCanBeAnAnchor(_ leaf: String, _ anchors: [String], _ why: String) throws {
        var trust: SecTrust?
        let leafCertificate = try SecurityFixtures.certificate(leaf)
        #expect(SecTrustCreateWithCertificates(leafCertificate, SecPolicyCreateSSL(true, "localhost" as CFString),
                                               &trust) == errSecSuccess)
        let created = try #require(trust)
        let anchorCertificates = try anchors.map(SecurityFixtures.certificate)
        #expect(SecTrustSetAnchorCertificates(created, anchorCertificates as CFArray) == errSecSuccess)
        #expect(Self.evaluate(created) == errSecSuccess, "\(why)")
    }

    @Test func wrongArgumentTypesAreParameterErrorsAndChangeNothing() throws {
        let trust = try SecurityFixtures.trust(try SecurityFixtures.chain("valid-rsa.pem"),
                                               policy: SecPolicyCreateSSL(true, "localhost" as CFString))
        let root = try SecurityFixtures.root()

        #expect(SecTrustSetAnchorCertificates(trust, [root, "not a certificate"] as CFArray) == errSecParam)
        #expect(SecTrustSetPolicies(trust, NSString(string: "not a policy")) == errSecParam)
        #expect(SecTrustSetPolicies(trust, [SecPolicyCreateBasicX509(), root] as CFArray) == errSecParam)
        #expect(Self.evaluate(trust) == errSecSuccess)

        var created: SecTrust?
        #expect(SecTrustCreateWithCertificates([] as CFArray, nil, &created) == errSecParam)
        #expect(SecTrustCreateWithCertificates([root, SecPolicyCreateBasicX509()] as CFArray, nil, &created)
            == errSecParam)
        #expect(SecTrustCreateWithCertificates(root, NSString(string: "x"), &created) == errSecParam)
        #expect(created == nil)
    }

    // MARK: Policies

    @Test func setPoliciesReplacesThePoliciesAndEveryPolicyMustPass() throws {
        let trust = try SecurityFixtures.trust(try SecurityFixtures.chain("wrong-host.pem"),
                                               policy: SecPolicyCreateSSL(true, "localhost" as CFString))
        #expect(Self.evaluate(trust) == errSecHostNameMismatch)

        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "wrong.fw.test" as CFString)) == errSecSuccess)
        #expect(Self.evaluate(trust) == errSecSuccess)

        let both = [SecPolicyCreateBasicX509(), SecPolicyCreateSSL(true, "localhost" as CFString)]
        #expect(SecTrustSetPolicies(trust, both as CFArray) == errSecSuccess)
        #expect(Self.evaluate(trust) == errSecHostNameMismatch)

        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(false, "localhost" as CFString)) == errSecSuccess)
        #expect(Self.evaluate(trust) == errSecSuccess, "a client SSL policy checks no host name")

        #expect(SecTrustSetPolicies(trust, [] as CFArray) == errSecSuccess)
        #expect(Self.evaluate(trust) == errSecSuccess, "no policy: the chain only")
    }

    // MARK: Chain and key

    @Test(arguments: [
        (["valid-rsa.pem", "intermediate-ca.pem"], ["valid-rsa.pem", "intermediate-ca.pem", "root-ca.pem"]),
        (["valid-ecdsa.pem", "intermediate-ca.pem", "root-ca.pem"],
         ["valid-ecdsa.pem", "intermediate-ca.pem", "root-ca.pem"]),
        (["unknown-root-leaf.pem"], ["unknown-root-leaf.pem"]),
        (["expired.pem", "intermediate-ca.pem"], ["expired.pem", "intermediate-ca.pem"]),
    ])
    func theChainEndsWithTheCustomAnchorThatValidatesIt(_ sent: [String], _ expected: [String]) throws {
        let trust = try SecurityFixtures.trust(try sent.map(SecurityFixtures.certificate),
                                               policy: SecPolicyCreateSSL(true, "localhost" as CFString))
        let expectedCertificates = try expected.map(SecurityFixtures.certificate)

        let chain = try #require(SecTrustCopyCertificateChain(trust) as? [SecCertificate])
        #expect(chain == expectedCertificates)
        #expect(SecTrustGetCertificateCount(trust) == expected.count)
        #expect(CFArrayGetCount(SecTrustCopyCertificateChain(trust)) == expected.count)
        for (index, certificate) in expectedCertificates.enumerated() {
            #expect(SecTrustGetCertificateAtIndex(trust, index) == certificate)
        }
        #expect(SecTrustGetCertificateAtIndex(trust, expected.count) == nil)
        #expect(SecTrustGetCertificateAtIndex(trust, -1) == nil)
    }

    @Test func withSystemAnchorsTheChainIsAsSent() throws {
        var trust: SecTrust?
        let chain = try SecurityFixtures.chain("valid-rsa.pem")
        #expect(SecTrustCreateWithCertificates(chain as CFArray, nil, &trust) == errSecSuccess)
        #expect(SecTrustCopyCertificateChain(try #require(trust)) as? [SecCertificate] == chain)
    }

    @Test(arguments: ["valid-rsa.pem", "valid-ecdsa.pem"])
    func trustKeyIsTheLeafKey(_ leaf: String) throws {
        let chain = try SecurityFixtures.chain(leaf)
        let trust = try SecurityFixtures.trust(chain, policy: SecPolicyCreateBasicX509())
        let key = try #require(SecTrustCopyKey(trust))
        #expect(key == SecCertificateCopyKey(chain[0]))
        #expect(key != SecCertificateCopyKey(chain[1]))
        #expect(SecTrustCopyPublicKey(trust) == key)
    }
}
