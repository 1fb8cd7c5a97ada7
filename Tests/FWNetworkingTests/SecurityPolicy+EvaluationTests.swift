import Foundation
import FWNetworking
import Testing
import TestSupport

// SecurityPolicy's rules judged from real TLS handshakes: `openssl s_server` serves a fixture, and a
// session delegate answers the server-trust challenge with the policy's verdict, as the manager will
// (accept with the challenge's trust, else refuse and keep the reason). The session trusts the fixture
// root, so the platform validation of the fixtures' good chains passes.

// MARK: - PolicyDelegate

/// Answers the server-trust challenge with a policy's verdict; records the reason of a refusal and the
/// leaf the server sent.
final class PolicyDelegate: NSObject, URLSessionDelegate, Sendable {
    private let policy: SecurityPolicy
    private let domain: String?
    private let usesChallengeHost: Bool
    /// The reason the policy gave, when it refused.
    let refusal = LockedBox<TrustError?>(nil)
    /// The DER of the leaf certificate the server sent.
    let leaf = LockedBox<Data?>(nil)

    /// A delegate evaluating for the challenge's host (what the manager passes), or for `domain`.
    init(_ policy: SecurityPolicy, domain: String?? = .none) {
        self.policy = policy
        self.domain = domain ?? nil
        self.usesChallengeHost = domain == nil
    }

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust, let trust = space.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        leaf.withLock { $0 = SecTrustGetCertificateAtIndex(trust, 0).map { SecCertificateCopyData($0) as Data } }
        do {
            try policy.evaluate(trust, forDomain: usesChallengeHost ? space.host : domain)
            completionHandler(.useCredential, URLCredential(trust: trust))
        } catch {
            refusal.withLock { $0 = error }
            completionHandler(.rejectProtectionSpace, nil)
        }
    }
}

// MARK: - Rows

/// One handshake: what the server sends, the policy, the domain evaluated, and the verdict.
struct PolicyRow: Sendable, CustomTestStringConvertible {
    enum Verdict: Sendable { case trusted, untrusted, hostnameMismatch, unknownRoot, pinMismatch, expired }

    var name: String
    var certificate: String
    var chain: String? = "intermediate-ca.pem"
    var mode: SSLPinningMode = .none
    var pins: [String]? = nil
    var allowInvalid = false
    var validatesDomainName = true
    /// nil: the challenge's host; `.some(nil)`: no domain.
    var domain: String?? = .none
    var verdict: Verdict

    var testDescription: String { name }

    func policy() throws -> SecurityPolicy {
        let policy = try pins.map { SecurityPolicy(pinningMode: mode, pinnedCertificates: try Self.der($0)) }
            ?? SecurityPolicy.default
        policy.allowInvalidCertificates = allowInvalid
        policy.validatesDomainName = validatesDomainName
        return policy
    }

    /// The DER of the first certificate of each PEM fixture.
    static func der(_ names: [String]) throws -> Set<Data> {
        Set(try names.map { Data(try Certificate.certificates(pemFile: TLSFixtures.path($0))[0].derBytes) })
    }

    static func matches(_ verdict: Verdict, _ error: TrustError?) -> Bool {
        switch verdict {
        case .trusted: error == nil
        case .untrusted: error?.isUntrusted == true
        case .hostnameMismatch: error?.isHostnameMismatch == true
        case .unknownRoot: error?.isUnknownRoot == true
        case .pinMismatch: error?.isPinMismatch == true
        case .expired: error?.isExpired == true
        }
    }
}

// MARK: - Tests

@Suite struct SecurityPolicyEvaluationTests {
    static let rows: [PolicyRow] = [
        // No pinning: the platform validation, relaxed by the two flags.
        .init(name: "default, valid chain", certificate: "valid-ecdsa.pem", verdict: .trusted),
        .init(name: "default, wrong host", certificate: "wrong-host.pem", verdict: .hostnameMismatch),
        .init(name: "no domain validation, wrong host", certificate: "wrong-host.pem",
              validatesDomainName: false, verdict: .trusted),
        .init(name: "default, no domain given, wrong host", certificate: "wrong-host.pem", domain: .some(nil),
              verdict: .trusted),
        .init(name: "default, self-signed", certificate: "self-signed.pem", chain: nil, verdict: .unknownRoot),
        .init(name: "default, expired", certificate: "expired.pem", verdict: .expired),
        .init(name: "invalid allowed without domain validation, self-signed", certificate: "self-signed.pem",
              chain: nil, allowInvalid: true, validatesDomainName: false, verdict: .trusted),
        .init(name: "invalid allowed with domain validation and no pins, self-signed", certificate: "self-signed.pem",
              chain: nil, allowInvalid: true, verdict: .untrusted),
        .init(name: "invalid allowed with domain validation, no domain given", certificate: "self-signed.pem",
              chain: nil, allowInvalid: true, domain: .some(nil), verdict: .trusted),
        // Certificate pinning: the chain must lead to a pinned certificate.
        .init(name: "certificate: pinned leaf", certificate: "valid-ecdsa.pem", mode: .certificate,
              pins: ["valid-ecdsa.pem"], verdict: .trusted),
        .init(name: "certificate: pinned intermediate", certificate: "valid-rsa.pem", mode: .certificate,
              pins: ["intermediate-ca.pem"], verdict: .trusted),
        .init(name: "certificate: pinned root the server does not send", certificate: "valid-ecdsa.pem",
              mode: .certificate, pins: ["root-ca.pem"], verdict: .trusted),
        .init(name: "certificate: another leaf pinned", certificate: "valid-ecdsa.pem", mode: .certificate,
              pins: ["valid-rsa.pem"], verdict: .pinMismatch),
        .init(name: "certificate: no pins", certificate: "valid-ecdsa.pem", mode: .certificate, pins: [],
              verdict: .pinMismatch),
        .init(name: "certificate: pinned self-signed, invalid allowed", certificate: "self-signed.pem", chain: nil,
              mode: .certificate, pins: ["self-signed.pem"], allowInvalid: true, verdict: .trusted),
        .init(name: "certificate: pinned self-signed, invalid refused", certificate: "self-signed.pem", chain: nil,
              mode: .certificate, pins: ["self-signed.pem"], verdict: .unknownRoot),
        .init(name: "certificate: pinned expired leaf, invalid allowed", certificate: "expired.pem",
              mode: .certificate, pins: ["expired.pem"], allowInvalid: true, verdict: .expired),
        .init(name: "certificate: pinned wrong host", certificate: "wrong-host.pem", mode: .certificate,
              pins: ["wrong-host.pem"], verdict: .hostnameMismatch),
        .init(name: "certificate: pinned wrong host, no domain validation", certificate: "wrong-host.pem",
              mode: .certificate, pins: ["wrong-host.pem"], validatesDomainName: false, verdict: .trusted),
        // Public-key pinning: a certificate of the chain must carry a pinned key.
        .init(name: "public key: leaf key", certificate: "valid-ecdsa.pem", mode: .publicKey,
              pins: ["valid-ecdsa.pem"], verdict: .trusted),
        .init(name: "public key: intermediate key", certificate: "valid-rsa.pem", mode: .publicKey,
              pins: ["intermediate-ca.pem"], verdict: .trusted),
        .init(name: "public key: root key, root not sent", certificate: "valid-rsa.pem", mode: .publicKey,
              pins: ["root-ca.pem"], verdict: .trusted),
        .init(name: "public key: another key", certificate: "valid-ecdsa.pem", mode: .publicKey,
              pins: ["valid-rsa.pem", "unknown-root-ca.pem"], verdict: .pinMismatch),
        .init(name: "public key: no pins", certificate: "valid-ecdsa.pem", mode: .publicKey, pins: [],
              verdict: .pinMismatch),
        .init(name: "public key: right key, wrong host", certificate: "wrong-host.pem", mode: .publicKey,
              pins: ["wrong-host.pem"], verdict: .hostnameMismatch),
        .init(name: "public key: self-signed key, invalid allowed", certificate: "self-signed.pem", chain: nil,
              mode: .publicKey, pins: ["self-signed.pem"], allowInvalid: true, verdict: .trusted),
        .init(name: "public key: expired leaf's key, invalid allowed", certificate: "expired.pem",
              mode: .publicKey, pins: ["expired.pem"], allowInvalid: true, verdict: .trusted),
        .init(name: "public key: self-signed key, invalid refused", certificate: "self-signed.pem", chain: nil,
              mode: .publicKey, pins: ["self-signed.pem"], verdict: .unknownRoot),
    ]

    @Test(arguments: rows)
    func aHandshakeIsJudgedByThePolicy(_ row: PolicyRow) async throws {
        let server = try OpenSSLServer.start(certificate: row.certificate, chain: row.chain)
        defer { server.stop() }
        let delegate = PolicyDelegate(try row.policy(), domain: row.domain)
        let result = try await Self.fetch(port: server.port, delegate: delegate)
        let refusal = delegate.refusal.withLock { $0 }
        #expect(PolicyRow.matches(row.verdict, refusal), "\(String(describing: refusal))")
        switch row.verdict {
        case .trusted: #expect(result == 200)
        default: #expect(result == URLError.Code.serverCertificateUntrusted.rawValue)
        }
    }

    @Test func aDifferentLeafWithThePinnedKeyPassesPublicKeyButNotCertificatePinning() async throws {
        // The fixtures have no two leaves sharing a key: sign a second leaf for valid-rsa.key here.
        let directory = try SameKeyLeaf.make()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // s_server takes the last -cert it is given: the new leaf, served with valid-rsa.key.
        let server = try OpenSSLServer.start(certificate: "valid-rsa.pem", extra: ["-cert", directory + "/leaf.pem"])
        defer { server.stop() }
        let pinned = try PolicyRow.der(["valid-rsa.pem"])
        for (mode, expected) in [(SSLPinningMode.publicKey, 200), (.certificate, -1202)] {
            let delegate = PolicyDelegate(SecurityPolicy(pinningMode: mode, pinnedCertificates: pinned))
            #expect(try await Self.fetch(port: server.port, delegate: delegate) == expected, "\(mode)")
            let served = try #require(delegate.leaf.withLock { $0 })
            #expect(!pinned.contains(served), "the server sent the new leaf, not the pinned one")
        }
    }

    @Test func theBridgeShowsTheAnchorsAndHostTheUserSet() throws {
        let leaf = try #require(SecCertificateCreateWithData(nil, try Self.der("valid-ecdsa.pem") as CFData))
        let root = try #require(SecCertificateCreateWithData(nil, try Self.der("root-ca.pem") as CFData))
        var created: SecTrust?
        #expect(SecTrustCreateWithCertificates(leaf, SecPolicyCreateSSL(true, "example.test" as CFString),
                                               &created) == errSecSuccess)
        let trust = try #require(created)
        #expect(trust.serverTrust.host == "example.test")
        #expect(trust.serverTrust.anchors.includesSystemRoots)
        #expect(SecTrustSetAnchorCertificates(trust, [root] as CFArray) == errSecSuccess)
        #expect(trust.serverTrust.anchors.certificates.map(\.derBytes) == [Array(try Self.der("root-ca.pem"))])
        #expect(!trust.serverTrust.anchors.includesSystemRoots)
        #expect(trust.serverTrust.certificateChain.map(\.derBytes) == [Array(try Self.der("valid-ecdsa.pem"))])
    }

    // MARK: Helpers

    private static func der(_ name: String) throws -> Data {
        try #require(try PolicyRow.der([name]).first)
    }

    /// GET / over a session that trusts the fixture root: the status code, or the URLError code.
    private static func fetch(port: Int, delegate: PolicyDelegate) async throws -> Int {
        let configuration = URLSessionConfiguration.ephemeral
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(root)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "https://127.0.0.1:\(port)/"))
        do {
            let (_, response) = try await session.data(from: url)
            return try #require(response as? HTTPURLResponse).statusCode
        } catch let error as URLError {
            return error.code.rawValue
        }
    }
}

// MARK: - SameKeyLeaf

/// A localhost leaf for valid-rsa.key signed by the fixture intermediate, made with the openssl CLI.
enum SameKeyLeaf {
    /// A new temporary directory holding `leaf.pem`.
    static func make() throws -> String {
        let directory = NSTemporaryDirectory() + "fwnetworking-same-key-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let extensions = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
            + "basicConstraints=critical,CA:FALSE\n"
        try extensions.write(toFile: directory + "/leaf.ext", atomically: true, encoding: .utf8)
        try openssl(["req", "-new", "-key", TLSFixtures.path("valid-rsa.key"), "-subj",
                     "/O=FWNetworking Test/CN=same key, new leaf", "-out", directory + "/leaf.csr"])
        try openssl(["x509", "-req", "-in", directory + "/leaf.csr", "-CA", TLSFixtures.path("intermediate-ca.pem"),
                     "-CAkey", TLSFixtures.path("intermediate-ca.key"), "-set_serial", "4242", "-days", "3650",
                     "-sha256", "-extfile", directory + "/leaf.ext", "-out", directory + "/leaf.pem"])
        return directory
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " "))")
    }
}
