import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// Redirects as URLSession users expect them, and the ones FoundationNetworking gets wrong on Linux
// (307/308 bodies, credentials across origins).
@Suite struct RedirectTests {
    // MARK: The policy, pure

    private static func response(_ status: Int, location: String, url: String = "http://a.test/x/y?q#frag")
        -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: ["Location": location])!
    }

    private static func post(_ url: String = "http://a.test/x/y?q#frag") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = Data("body".utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("c=1", forHTTPHeaderField: "Cookie")
        return request
    }

    @Test(arguments: [
        (301, "POST", "GET", false), (302, "POST", "GET", false), (303, "POST", "GET", false),
        (303, "PUT", "GET", false), (303, "HEAD", "HEAD", true), (307, "POST", "POST", true),
        (308, "PUT", "PUT", true), (301, "PUT", "PUT", true), (302, "DELETE", "DELETE", true),
    ])
    func methodAndBodyFollowTheStatus(_ status: Int, _ method: String, _ expected: String, _ keepsBody: Bool) throws {
        var request = Self.post()
        request.httpMethod = method
        let next = try #require(RedirectPolicy.nextRequest(after: Self.response(status, location: "/z"), from: request))
        #expect(next.httpMethod == expected)
        #expect((next.httpBody != nil) == keepsBody)
        #expect((next.value(forHTTPHeaderField: "Content-Type") != nil) == keepsBody)
    }

    @Test(arguments: [
        ("/z", "http://a.test/z#frag"), ("z", "http://a.test/x/z#frag"), ("?r", "http://a.test/x/y?r#frag"),
        ("http://b.test/p#own", "http://b.test/p#own"), ("//c.test/p", "http://c.test/p#frag"),
    ])
    func locationIsResolvedAndTheFragmentInherited(_ location: String, _ expected: String) throws {
        let next = RedirectPolicy.nextRequest(after: Self.response(302, location: location), from: Self.post())
        #expect(next?.url?.absoluteString == expected)
    }

    @Test func credentialsStayWithTheirOrigin() throws {
        let sameOrigin = try #require(RedirectPolicy.nextRequest(after: Self.response(307, location: "/z"), from: Self.post()))
        #expect(sameOrigin.value(forHTTPHeaderField: "Authorization") == "Bearer secret")
        #expect(sameOrigin.value(forHTTPHeaderField: "Cookie") == "c=1")
        for location in ["http://b.test/z", "https://a.test/z", "http://a.test:8080/z"] {
            let crossOrigin = try #require(RedirectPolicy.nextRequest(after: Self.response(307, location: location),
                                                                      from: Self.post()))
            #expect(crossOrigin.value(forHTTPHeaderField: "Authorization") == nil)
            #expect(crossOrigin.value(forHTTPHeaderField: "Cookie") == nil)
        }
    }

    @Test func notEveryThreeHundredIsARedirect() {
        #expect(RedirectPolicy.nextRequest(after: Self.response(300, location: "/z"), from: Self.post()) == nil)
        #expect(RedirectPolicy.nextRequest(after: Self.response(304, location: "/z"), from: Self.post()) == nil)
        let noLocation = HTTPURLResponse(url: URL(string: "http://a.test/")!, statusCode: 302, httpVersion: nil,
                                         headerFields: [:])!
        #expect(RedirectPolicy.nextRequest(after: noLocation, from: Self.post()) == nil)
    }

    // MARK: End to end

    private static func makeServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            switch request.target {
            case "/302": return .status(302, body: Array("moved".utf8), headers: [("Location", "/final")])
            case "/307": return .status(307, headers: [("Location", "/final")])
            case "/loop": return .status(302, headers: [("Location", "/loop")])
            case "/final":
                return .ok("\(request.method) \(String(decoding: request.body, as: UTF8.self)) " +
                           "\(request.header("X-Added") ?? "-")")
            default: return .status(404)
            }
        }
    }

    private final class RedirectDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // lets only
        let decide: @Sendable (URLRequest) -> URLRequest?

        init(_ decide: @escaping @Sendable (URLRequest) -> URLRequest?) { self.decide = decide }

        func urlSession(_ session: URLSession, task: URLSessionTask,
                        willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
                        completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            let decision = decide(request)
            DispatchQueue.global().async { completionHandler(decision) }
        }
    }

    @Test func a302TurnsPostIntoGetAndA307KeepsIt() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: URL(string: server.baseURL + "/302")!)
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        let (found, foundResponse) = try await session.data(for: request)
        #expect(String(decoding: found, as: UTF8.self) == "GET  -")
        #expect(foundResponse.url?.path == "/final")

        request.url = URL(string: server.baseURL + "/307")
        let (kept, _) = try await session.data(for: request)
        #expect(String(decoding: kept, as: UTF8.self) == "POST payload -")
    }

    @Test func theDelegateCanModifyOrRefuse() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = URL(string: server.baseURL + "/302")!

        let modify = RedirectDelegate { request in
            var request = request
            request.setValue("yes", forHTTPHeaderField: "X-Added")
            return request
        }
        let (modified, _) = try await session.data(for: URLRequest(url: url), delegate: modify)
        #expect(String(decoding: modified, as: UTF8.self) == "GET  yes")

        let refuse = RedirectDelegate { _ in nil }
        let (body, response) = try await session.data(for: URLRequest(url: url), delegate: refuse)
        #expect((response as? HTTPURLResponse)?.statusCode == 302)
        #expect(String(decoding: body, as: UTF8.self) == "moved")
    }

    @Test func aRedirectLoopEndsWithTooManyRedirects() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        await #expect { try await session.data(from: URL(string: server.baseURL + "/loop")!) } throws: {
            ($0 as? URLError)?.code == .httpTooManyRedirects
        }
        #expect(server.requestCount == RedirectPolicy.maxRedirects + 1)
    }

    @Test func everyHopIsAMetricsTransactionAndCurrentRequestFollows() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let delegate = RecordingDataDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: server.baseURL + "/302")!)
        task.resume()
        #expect(delegate.waitForCompletion())
        let metrics = try #require(delegate.log.withLock { $0.metrics.first })
        #expect(metrics.redirectCount == 1)
        #expect(metrics.transactionMetrics.map { ($0.response as? HTTPURLResponse)?.statusCode } == [302, 200])
        #expect(metrics.transactionMetrics.map { $0.request.url?.path } == ["/302", "/final"])
        #expect(metrics.transactionMetrics[1].isReusedConnection)
        #expect(task.currentRequest?.url?.path == "/final")
        #expect(task.originalRequest?.url?.path == "/302")
        #expect(delegate.log.withLock { $0.data } == Data("GET  -".utf8))
    }

    @Test func crossOriginHopsDropCredentials() async throws {
        let target = try LoopbackHTTPServer { request in
            .ok("auth=\(request.header("Authorization") ?? "none") cookie=\(request.header("Cookie") ?? "none")")
        }
        defer { target.stop() }
        let origin = try LoopbackHTTPServer { _ in .status(302, headers: [("Location", target.baseURL + "/")]) }
        defer { origin.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: URL(string: origin.baseURL + "/")!)
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("c=1", forHTTPHeaderField: "Cookie")
        let (body, _) = try await session.data(for: request)
        #expect(String(decoding: body, as: UTF8.self) == "auth=none cookie=none")
        #expect(origin.requests.first?.header("Authorization") == "Bearer secret")
    }
}
