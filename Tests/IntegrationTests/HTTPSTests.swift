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

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
