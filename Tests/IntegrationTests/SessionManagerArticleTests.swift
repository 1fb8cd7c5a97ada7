import Foundation
import FWNetworking
import Testing
import TestSupport

// The complete example of the DocC article Sources/FWNetworking/FWNetworking.docc/SessionManager.md (and of
// the README's manager section), compiled with the article's two imports and run against nginx over
// HTTPS: the pinned key accepted, another key refused with -1202 and the policy's reason, and a flaky
// HTTPS route retried until it answers. Keep the client below identical to the article's.

// MARK: - The article's client

final class APIClient: Sendable {
    let manager: URLSessionManager

    init(configuration: URLSessionConfiguration = .default, pinnedCertificates: Set<Data>) {
        manager = URLSessionManager(sessionConfiguration: configuration)
        // A Linux process rarely runs the main queue: complete on a queue of our own.
        manager.completionQueue = DispatchQueue(label: "api-client.completion")
        let json = JSONResponseSerializer()
        json.removesKeysWithNullValues = true
        manager.responseSerializer = json
        manager.securityPolicy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pinnedCertificates)
    }

    /// GETs `url`, decodes its JSON object with `decode`, and says how many attempts it took.
    func get<Value: Sendable>(_ url: URL, decode: @escaping @Sendable ([String: Any]) throws -> Value)
        async throws -> (value: Value, attempts: Int) {
        try await withCheckedThrowingContinuation { continuation in
            manager.dataTask(
                requestBuilder: { URLRequest(url: url) },
                retryCount: 3, retryInterval: 1, timeoutInterval: 20,
                completionHandler: { [manager] response, object, error in
                    continuation.resume(with: Result {
                        if let error { throw error }
                        let value = try decode(object as? [String: Any] ?? [:])
                        return (value, manager.requestTotalCount(for: response))
                    })
                }
            ).resume()
        }
    }

    /// Ends the session (the manager and the session keep each other until then).
    func close() {
        manager.invalidateSessionCancelingTasks(true, resetSession: false)
    }
}

// MARK: - Tests

@Suite struct SessionManagerArticleTests {
    /// nginx over HTTPS (the ECDSA fixture): `/user.json`, and `/flaky.json`, which answers 503 until a
    /// file appears (the test makes it appear after the first attempt).
    static func nginx() throws -> NginxServer {
        try NginxServer(files: ["user.json": Array(#"{"name":"Ada","team":null}"#.utf8)], blocks: [
            NginxServer.Block(tls: (chain: ["valid-ecdsa.pem", "intermediate-ca.pem"], key: "valid-ecdsa.key"),
                              config: "location = /flaky.json { try_files /ready.json =503; }"),
        ])
    }

    static func client(pinning certificate: String) throws -> APIClient {
        let configuration = URLSessionConfiguration.ephemeral
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(root)
        let pinned = Data(try Certificate.certificates(pemFile: TLSFixtures.path(certificate))[0].derBytes)
        return APIClient(configuration: configuration, pinnedCertificates: [pinned])
    }

    @Test func thePinnedServerAnswers() async throws {
        let nginx = try Self.nginx()
        defer { nginx.stop() }
        let client = try Self.client(pinning: "valid-ecdsa.pem")
        defer { client.close() }
        let url = try #require(URL(string: "https://127.0.0.1:\(nginx.port)/user.json"))
        let (user, attempts) = try await client.get(url) { $0.keys.sorted() + [$0["name"] as? String ?? ""] }
        #expect(user == ["name", "Ada"], "null values removed")
        #expect(attempts == 1)
    }

    @Test func anotherKeyIsRefusedWithTheReason() async throws {
        let nginx = try Self.nginx()
        defer { nginx.stop() }
        let client = try Self.client(pinning: "valid-rsa.pem")
        defer { client.close() }
        let url = try #require(URL(string: "https://127.0.0.1:\(nginx.port)/user.json"))
        do {
            _ = try await client.get(url) { $0.count }
            Issue.record("a server without the pinned key was trusted")
        } catch let error as URLError {
            #expect(error.code == .serverCertificateUntrusted)
            #expect(error.userInfo[NSURLErrorFailingURLPeerTrustErrorKey] is SecTrust)
            #expect((error.userInfo[NSUnderlyingErrorKey] as? TrustError)?.isUntrusted == true)
            #expect((error.userInfo[NSUnderlyingErrorKey] as? TrustError)?.reason.contains("pinned") == true)
        }
    }

    @Test func aFlakyRouteIsRetried() async throws {
        let nginx = try Self.nginx()
        defer { nginx.stop() }
        let client = try Self.client(pinning: "valid-ecdsa.pem")
        defer { client.close() }
        let url = try #require(URL(string: "https://127.0.0.1:\(nginx.port)/flaky.json"))
        let root = nginx.root
        // The route starts answering once it failed once.
        DispatchQueue.global().async {
            _ = waitUntil(timeout: 20) { nginx.accessLog.contains { $0.contains("flaky.json") } }
            _ = FileManager.default.createFile(atPath: root + "/ready.json", contents: Data(#"{"ready":true}"#.utf8))
        }
        let (ready, attempts) = try await client.get(url) { $0["ready"] as? Bool ?? false }
        #expect(ready)
        #expect(attempts == 2)
    }
}
