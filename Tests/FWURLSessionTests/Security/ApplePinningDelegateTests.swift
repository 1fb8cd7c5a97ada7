import Foundation
import FWTLS
@testable import FWURLSession
import Testing

// Drives the verbatim Apple-style delegate (ApplePinningDelegate.swift) with the challenge a session
// raises after a TLS handshake: a SecTrust over the fixture chain the server would send, for host
// localhost, anchored in the fixture root (the session's configured roots).
@Suite struct ApplePinningDelegateTests {
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let leaf: String
        let pinnedFiles: [String]
        let accepted: Bool
    }

    static let cases: [Case] = [
        Case(description: "RSA leaf, its pin", leaf: "valid-rsa.pem", pinnedFiles: ["valid-rsa.pem"], accepted: true),
        Case(description: "ECDSA leaf, its pin and a backup", leaf: "valid-ecdsa.pem",
             pinnedFiles: ["valid-rsa.pem", "valid-ecdsa.pem"], accepted: true),
        Case(description: "RSA leaf, another key pinned", leaf: "valid-rsa.pem", pinnedFiles: ["valid-ecdsa.pem"],
             accepted: false),
        Case(description: "ECDSA leaf, the intermediate pinned (the snippet pins the leaf)", leaf: "valid-ecdsa.pem",
             pinnedFiles: ["intermediate-ca.pem"], accepted: false),
        Case(description: "pinned leaf for the wrong host", leaf: "wrong-host.pem", pinnedFiles: ["wrong-host.pem"],
             accepted: false),
        Case(description: "pinned leaf that has expired", leaf: "expired.pem", pinnedFiles: ["expired.pem"],
             accepted: false),
    ]

    /// The challenge the session raises for `leaf` + intermediate, as the transport will build it.
    static func serverTrustChallenge(leaf: String, answers: ChallengeAnswers) throws -> URLAuthenticationChallenge {
        let chain = try SecurityFixtures.chain(leaf).map(\.certificate)
        let roots = TrustRoots.certificates([try SecurityFixtures.root().certificate])
        let trust = SecTrust(serverTrust: ServerTrust(certificateChain: chain, host: "localhost", anchors: roots))
        let space = URLProtectionSpace(serverTrust: trust, host: "localhost", port: 8443)
        return URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: nil,
            error: nil, sender: answers.makeSender()
        )
    }

    @Test(arguments: cases)
    func pinsThePublicKey(_ testCase: Case) throws {
        let pins = try SecurityFixtures.readmePins()
        let hashes = try testCase.pinnedFiles.map {
            try #require(pins[$0]).replacingOccurrences(of: "sha256//", with: "")
        }
        let delegate = PublicKeyPinningDelegate(pinnedPublicKeyHashes: Set(hashes))
        let answers = ChallengeAnswers()
        let challenge = try Self.serverTrustChallenge(leaf: testCase.leaf, answers: answers)

        delegate.urlSession(URLSession.shared, didReceive: challenge, completionHandler: answers.handler)

        let answer = try #require(answers.all.first)
        #expect(answers.all.count == 1)
        if testCase.accepted {
            #expect(answer.disposition == .useCredential)
            #expect(answer.credential?.trust === challenge.protectionSpace.serverTrust)
        } else {
            #expect(answer.disposition == .cancelAuthenticationChallenge)
            #expect(answer.credential == nil)
        }
    }

    @Test(arguments: [
        ("valid-rsa.pem", "valid-rsa.pem", true),
        ("valid-ecdsa.pem", "valid-ecdsa.pem", true),
        ("valid-ecdsa.pem", "valid-rsa.pem", false),
        ("valid-ecdsa.pem", "intermediate-ca.pem", false),
        ("wrong-host.pem", "wrong-host.pem", false),
        ("expired.pem", "expired.pem", false),
    ])
    func pinsTheCertificate(_ leaf: String, _ pinnedFile: String, _ accepted: Bool) throws {
        let pinned = try #require(try SecurityFixtures.derCertificates(pinnedFile).first)
        let delegate = CertificatePinningDelegate(pinnedCertificateData: pinned)
        let answers = ChallengeAnswers()
        let challenge = try Self.serverTrustChallenge(leaf: leaf, answers: answers)

        delegate.urlSession(URLSession.shared, didReceive: challenge, completionHandler: answers.handler)

        #expect(answers.all.map(\.disposition) == [accepted ? .useCredential : .cancelAuthenticationChallenge])
        #expect((answers.all.first?.credential?.trust != nil) == accepted)
    }

    @Test func leavesOtherChallengesToDefaultHandling() {
        let delegate = PublicKeyPinningDelegate(pinnedPublicKeyHashes: [])
        let answers = ChallengeAnswers()
        let space = URLProtectionSpace(host: "localhost", port: 443, protocol: "https", realm: "api",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: nil,
            error: nil, sender: answers.makeSender()
        )

        delegate.urlSession(URLSession.shared, didReceive: challenge, completionHandler: answers.handler)

        #expect(answers.all.map(\.disposition) == [.performDefaultHandling])
    }

    @Test(arguments: [
        (0, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="),
        (55, "n0OQ+NMMLdkuyfCVtl4rmumwqSWlJY4kHJ8ekQ9zQxg="),
        (56, "s1Q5pKxvCUi21vnjxq8PX1kM4g8b3nCQ73lwaG7Gc4o="),
        (63, "fT50oF19sVvOStnsBljqmOPwbu7PFrTG//LaRX3cLzQ="),
        (64, "/+BU/nrgy23GXDr5th1SCfQ5hR20PQulmXM33xVGaOs="),
        (65, "Y1NhxIu56rFBmOduqKt/GkFoXWrWKqkUbTAdTxfrCuA="),
        (119, "MeulHDE6XAgiat8Y1KNZz9/Y0ugWsT9K+VL36mWE3Ps="),
        (120, "Lz0zVDLHC1gK8Ojhs2dKfAINaDql9zqq7f3FWvkEwhw="),
        (1000, "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM="),
    ])
    func tinySHA256MatchesKnownDigests(_ length: Int, _ digest: String) {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        #expect(Data(TinySHA256.hash(message)).base64EncodedString() == digest)
    }

    @Test(arguments: ["root-ca.pem", "valid-rsa.pem", "valid-ecdsa.pem", "client.pem"])
    func tinySHA256MatchesOpenSSL(_ file: String) throws {
        let certificate = try SecurityFixtures.certificate(file).certificate
        #expect(TinySHA256.hash(certificate.derBytes) == certificate.sha256Fingerprint)
        #expect(TinySHA256.hash(certificate.spkiDER) == certificate.spkiSHA256)
    }
}
