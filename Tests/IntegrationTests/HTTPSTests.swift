import Foundation
import FWNetworking
import Testing
import TestSupport

// HTTPS end to end against `openssl s_server`, a TLS server nobody here wrote: the handshake, default
// trust evaluation with custom roots, and the URLError of every kind of untrusted certificate.
@Suite struct HTTPSTests {
    private static func session(trusting roots: TrustRoots? = nil,
                                _ adjust: (URLSessionConfiguration) -> Void = { _ in }) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.tlsTrustRoots = try roots ?? .certificates(Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        adjust(configuration)
        return URLSession(configuration: configuration)
    }

    private static func load(_ session: URLSession, port: Int, host: String = "127.0.0.1") async -> Result<(Data, URLResponse), URLError> {
        do {
            return .success(try await session.data(from: URL(string: "https://\(host):\(port)/")!))
        } catch let error as URLError {
            return .failure(error)
        } catch {
            return .failure(URLError(.unknown))
        }
    }

    @Test(arguments: ["valid-rsa.pem", "valid-ecdsa.pem"])
    func aTrustedServerAnswers(_ certificate: String) async throws {
        let server = try OpenSSLServer.start(certificate: certificate)
        defer { server.stop() }
        let session = try Self.session()
        defer { session.invalidateAndCancel() }
        let (body, response) = try await Self.load(session, port: server.port).get()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("s_server"))
    }

    @Test(arguments: [
        ("expired.pem", URLError.Code.serverCertificateHasBadDate),
        ("not-yet-valid.pem", .serverCertificateNotYetValid),
        ("wrong-host.pem", .serverCertificateUntrusted),
        ("unknown-root-leaf.pem", .serverCertificateHasUnknownRoot),
        ("self-signed.pem", .serverCertificateHasUnknownRoot),
    ])
    func anUntrustedServerFailsWithItsReason(_ certificate: String, _ expected: URLError.Code) async throws {
        let chain: String? = certificate.hasPrefix("unknown-root") || certificate.hasPrefix("self-signed")
            ? nil : "intermediate-ca.pem"
        let server = try OpenSSLServer.start(certificate: certificate, chain: chain)
        defer { server.stop() }
        let session = try Self.session()
        defer { session.invalidateAndCancel() }
        let result = await Self.load(session, port: server.port)
        #expect(result.failure?.code == expected, "\(result)")
    }

    @Test func theSystemStoreDoesNotKnowTheTestRoot() async throws {
        let server = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        defer { server.stop() }
        let session = try Self.session(trusting: .system)
        defer { session.invalidateAndCancel() }
        #expect(await Self.load(session, port: server.port).failure?.code == .serverCertificateHasUnknownRoot)
    }

    @Test func versionBoundsAreHonoured() async throws {
        let server = try OpenSSLServer.start(certificate: "valid-rsa.pem", extra: ["-tls1_3"])
        defer { server.stop() }
        let tooOld = try Self.session { $0.tlsMaximumSupportedProtocolVersion = .TLSv12 }
        defer { tooOld.invalidateAndCancel() }
        #expect(await Self.load(tooOld, port: server.port).failure?.code == .secureConnectionFailed)
        let fine = try Self.session()
        defer { fine.invalidateAndCancel() }
        #expect((try? await Self.load(fine, port: server.port).get()) != nil)
    }
}

// MARK: - Server-trust challenges

/// A session delegate that answers the server-trust challenge by certificate pinning (the leaf's DER
/// against a pinned fixture), or cancels, or asks for default handling; it records what it was asked.
final class PinningDelegate: NSObject, URLSessionDelegate, @unchecked Sendable { // `asked`: under `lock`
    enum Answer { case pin(Data), cancel, defaultHandling }

    private let answer: Answer
    private let lock = NSLock()
    private var asked: [(method: String, host: String, port: Int, chainLength: Int)] = []

    init(_ answer: Answer) { self.answer = answer }

    var challenges: [(method: String, host: String, port: Int, chainLength: Int)] { lock.withLock { asked } }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let space = challenge.protectionSpace
        guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust, let trust = space.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate] ?? []
        lock.withLock { asked.append((space.authenticationMethod, space.host, space.port, chain.count)) }
        switch answer {
        case .pin(let pinned):
            if let leaf = chain.first, SecCertificateCopyData(leaf) as Data == pinned {
                completionHandler(.useCredential, URLCredential(trust: trust))
            } else {
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        case .cancel:
            completionHandler(.cancelAuthenticationChallenge, nil)
        case .defaultHandling:
            completionHandler(.performDefaultHandling, nil)
        }
    }
}

@Suite struct ServerTrustChallengeTests {
    private static func pem(_ name: String) throws -> Data {
        Data(try Certificate.certificates(pemFile: TLSFixtures.path(name))[0].derBytes)
    }

    private static func run(_ delegate: PinningDelegate, certificate: String, chain: String? = nil)
        async throws -> (Result<Int, URLError>, PinningDelegate, Int) {
        let server = try OpenSSLServer.start(certificate: certificate, chain: chain)
        defer { server.stop() }
        // The default trust store does not know the fixture roots: only the delegate can accept.
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        do {
            let (_, response) = try await session.data(from: URL(string: "https://127.0.0.1:\(server.port)/")!)
            return (.success((response as? HTTPURLResponse)?.statusCode ?? 0), delegate, server.port)
        } catch let error as URLError {
            return (.failure(error), delegate, server.port)
        }
    }

    @Test func aPinnedCertificateIsAcceptedByTheDelegate() async throws {
        let (result, delegate, port) = try await Self.run(.init(.pin(try Self.pem("self-signed.pem"))),
                                                          certificate: "self-signed.pem")
        #expect(try result.get() == 200)
        let asked = try #require(delegate.challenges.first)
        #expect(asked.method == NSURLAuthenticationMethodServerTrust)
        #expect(asked.host == "127.0.0.1" && asked.port == port)
        #expect(asked.chainLength >= 1)
    }

    @Test func aPinMismatchCancels() async throws {
        let (result, _, _) = try await Self.run(.init(.pin(try Self.pem("valid-rsa.pem"))),
                                                certificate: "self-signed.pem")
        #expect(result.failure?.code == .cancelled)
    }

    @Test func defaultHandlingStillRejectsAnUnknownRoot() async throws {
        let (result, delegate, _) = try await Self.run(.init(.defaultHandling), certificate: "self-signed.pem")
        #expect(result.failure?.code == .serverCertificateHasUnknownRoot)
        #expect(delegate.challenges.count == 1)
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
