import Foundation
import FWNetworking
import Testing
import TestSupport

// Mutual TLS end to end against `openssl s_server -Verify 1 -CAfile client-ca.pem` (a server that
// requires a client certificate from the fixtures' client CA), over TLS 1.2 and 1.3: the
// NSURLAuthenticationMethodClientCertificate challenge, every answer to it, and the URLError of a
// missing or rejected certificate.

// MARK: - A delegate that answers client-certificate challenges

/// Answers client-certificate challenges as told and server-trust challenges with default handling;
/// records every challenge in order.
final class ClientCertificateDelegate: NSObject, URLSessionDelegate, @unchecked Sendable { // `asked`: `lock`
    enum Answer {
        case identity(SecIdentity, certificates: [SecCertificate]?)
        case defaultHandling
        case cancel
        case reject
    }

    struct Asked {
        var method: String
        var host: String
        var port: Int
        var distinguishedNames: [Data]?
    }

    private let answer: Answer
    private let lock = NSLock()
    private var asked: [Asked] = []

    init(_ answer: Answer) { self.answer = answer }

    var challenges: [Asked] { lock.withLock { asked } }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        let space = challenge.protectionSpace
        lock.withLock {
            asked.append(Asked(method: space.authenticationMethod, host: space.host, port: space.port,
                               distinguishedNames: space.distinguishedNames))
        }
        guard space.authenticationMethod == NSURLAuthenticationMethodClientCertificate else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        switch answer {
        case .identity(let identity, let certificates):
            completionHandler(.useCredential,
                              URLCredential(identity: identity, certificates: certificates, persistence: .forSession))
        case .defaultHandling:
            completionHandler(.performDefaultHandling, nil)
        case .cancel:
            completionHandler(.cancelAuthenticationChallenge, nil)
        case .reject:
            completionHandler(.rejectProtectionSpace, nil)
        }
    }
}

// MARK: - Tests

@Suite struct MutualTLSTests {
    static let requireClientCertificate = ["-Verify", "1", "-CAfile", TLSFixtures.path("client-ca.pem")]
    static let versions: [tls_protocol_version_t] = [.TLSv12, .TLSv13]

    static func pemIdentity() throws -> SecIdentity {
        SecIdentity(tlsIdentity: try TLSIdentity(certificateChainPEMFile: TLSFixtures.path("client.pem"),
                                                 privateKeyPEMFile: TLSFixtures.path("client.key")))
    }

    /// The identity of client.p12, the way Apple code gets one.
    static func pkcs12Identity() throws -> SecIdentity {
        let data = try Data(contentsOf: URL(fileURLWithPath: TLSFixtures.path("client.p12")))
        var items: CFArray?
        let options = [kSecImportExportPassphrase as String: "fwnetworking"] as CFDictionary
        let status = SecPKCS12Import(data as CFData, options, &items)
        #expect(status == errSecSuccess)
        let first = try #require((items as? [[String: Any]])?.first)
        return try #require(first[kSecImportItemIdentity as String] as? SecIdentity)
    }

    /// Loads https://127.0.0.1:PORT/ from s_server's status page with `delegate` (nil: none) and
    /// `version` as the only protocol version.
    static func load(port: Int, delegate: (any URLSessionDelegate)?, version: tls_protocol_version_t)
        async throws -> Result<String, URLError> {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.tlsTrustRoots = .certificates(
            try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        configuration.tlsMinimumSupportedProtocolVersion = version
        configuration.tlsMaximumSupportedProtocolVersion = version
        configuration.timeoutIntervalForResource = 20
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        do {
            let (body, _) = try await session.data(from: URL(string: "https://127.0.0.1:\(port)/")!)
            return .success(String(decoding: body, as: UTF8.self))
        } catch let error as URLError {
            return .failure(error)
        }
    }

    @Test(arguments: versions)
    func aPEMIdentityIsSentAfterTheServerIsTrusted(_ version: tls_protocol_version_t) async throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let delegate = ClientCertificateDelegate(.identity(try Self.pemIdentity(), certificates: nil))
        let page = try await Self.load(port: server.port, delegate: delegate, version: version).get()
        #expect(page.contains("FWNetworking Test Client"), "s_server shows the client certificate it got")
        let asked = delegate.challenges
        #expect(asked.map(\.method) == [NSURLAuthenticationMethodServerTrust,
                                        NSURLAuthenticationMethodClientCertificate],
                "server trust is decided before the client certificate is chosen")
        let request = try #require(asked.last)
        #expect(request.host == "127.0.0.1" && request.port == server.port)
        let names = try #require(request.distinguishedNames)
        let clientCA = try Certificate.certificates(pemFile: TLSFixtures.path("client-ca.pem"))[0].derBytes
        #expect(names.count == 1)
        #expect(names.first.map { !$0.isEmpty && clientCA.contains(subsequence: [UInt8]($0)) } == true,
                "the accepted issuer is client-ca's subject (DER)")
    }

    @Test(arguments: versions)
    func aPKCS12IdentityWithItsChainIsSent(_ version: tls_protocol_version_t) async throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let identity = try Self.pkcs12Identity()
        let delegate = ClientCertificateDelegate(.identity(identity, certificates: []))
        let page = try await Self.load(port: server.port, delegate: delegate, version: version).get()
        #expect(page.contains("FWNetworking Test Client"))
    }

    @Test(arguments: versions)
    func noDelegateMeansNoCertificate(_ version: tls_protocol_version_t) async throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let result = try await Self.load(port: server.port, delegate: nil, version: version)
        #expect(result.failure?.code == .clientCertificateRequired, "\(result)")
    }

    @Test(arguments: [ClientCertificateDelegate.Answer.defaultHandling, .reject])
    func goingOnWithoutACertificateFailsWhenTheServerRequiresOne(_ answer: ClientCertificateDelegate.Answer)
        async throws {
        for version in Self.versions {
            let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
            defer { server.stop() }
            let delegate = ClientCertificateDelegate(answer)
            let result = try await Self.load(port: server.port, delegate: delegate, version: version)
            #expect(result.failure?.code == .clientCertificateRequired, "\(version): \(result)")
            #expect(delegate.challenges.last?.method == NSURLAuthenticationMethodClientCertificate)
        }
    }

    @Test(arguments: versions)
    func aServerThatOnlyAsksAcceptsNoCertificate(_ version: tls_protocol_version_t) async throws {
        let server = try OpenSSLServer.start(extra: ["-verify", "1", "-CAfile", TLSFixtures.path("client-ca.pem")])
        defer { server.stop() }
        let delegate = ClientCertificateDelegate(.defaultHandling)
        let page = try await Self.load(port: server.port, delegate: delegate, version: version).get()
        #expect(page.contains("s_server"))
        #expect(delegate.challenges.last?.method == NSURLAuthenticationMethodClientCertificate)
    }

    @Test(arguments: versions)
    func cancellingTheChallengeCancelsTheTask(_ version: tls_protocol_version_t) async throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let result = try await Self.load(port: server.port, delegate: ClientCertificateDelegate(.cancel),
                                         version: version)
        #expect(result.failure?.code == .cancelled, "\(result)")
    }

    @Test(arguments: versions)
    func aCertificateFromAnotherAuthorityIsRejected(_ version: tls_protocol_version_t) async throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate + ["-verify_return_error"])
        defer { server.stop() }
        let stranger = SecIdentity(tlsIdentity: try TLSIdentity(
            certificateChainPEMFile: TLSFixtures.path("valid-ecdsa.pem"),
            privateKeyPEMFile: TLSFixtures.path("valid-ecdsa.key")))
        let delegate = ClientCertificateDelegate(.identity(stranger, certificates: nil))
        let result = try await Self.load(port: server.port, delegate: delegate, version: version)
        #expect(result.failure?.code == .clientCertificateRejected, "\(result)")
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

private extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains {
            self[$0..<($0 + subsequence.count)].elementsEqual(subsequence)
        }
    }
}
