import Foundation
import FWNetworking
import Testing
import TestSupport

// The examples of the DocC article Sources/FWNetworking/FWNetworking.docc/GettingStarted.md, compiled with
// the article's two imports and run against loopback servers: the completion-handler data task, and the
// SPKI-pinning session delegate against openssl s_server (the right pin, a backup pin, a wrong pin).
// Keep the delegate below identical to the article's.

// MARK: - The article's pinning delegate

final class SPKIPinningDelegate: NSObject, URLSessionDelegate {
    private let pins: Set<String>      // "sha256//…", the current key and a backup key

    init(pins: Set<String>) {
        self.pins = pins
    }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition,
                                                            URLCredential?) -> Void) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error),
              let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate],
              let leaf = chain.first,
              pins.contains(leaf.certificate.spkiPin) else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        completionHandler(.useCredential, URLCredential(trust: trust))
    }
}

// MARK: - Tests

@Suite struct GettingStartedTests {
    @Test func theDataTaskExample() async throws {
        let server = try LoopbackHTTPServer { _ in .ok("hello") }
        defer { server.stop() }
        let url = URL(string: server.baseURL + "/")!
        let (status, count): (Int, Int) = await withCheckedContinuation { continuation in
            let task = URLSession.shared.dataTask(with: url) { data, response, error in
                #expect(error == nil)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                continuation.resume(returning: (status, data?.count ?? 0))
            }
            task.resume()
        }
        #expect(status == 200)
        #expect(count == 5)
    }

    @Test(arguments: [
        (["valid-ecdsa.pem"], true),
        (["valid-rsa.pem", "valid-ecdsa.pem"], true),
        (["valid-rsa.pem"], false),
    ])
    func thePinningExample(_ pinnedFiles: [String], _ accepted: Bool) async throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        defer { server.stop() }
        let readmePins = try TLSFixtures.readmePins()
        let pins = Set(try pinnedFiles.map { try #require(readmePins[$0]) })
        let configuration = URLSessionConfiguration.ephemeral
        let roots = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(roots)
        let session = URLSession(configuration: configuration, delegate: SPKIPinningDelegate(pins: pins),
                                 delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        do {
            let (_, response) = try await session.data(from: URL(string: "https://127.0.0.1:\(server.port)/")!)
            #expect(accepted)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        } catch let error as URLError {
            #expect(!accepted, "\(error)")
            #expect(error.code == .cancelled)
        }
    }
}
