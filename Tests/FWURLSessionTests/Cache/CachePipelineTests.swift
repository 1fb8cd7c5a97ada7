import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// The URL cache on the wire, against nginx: a fresh response is served without the network (a
// `.localCache` transaction), a `no-cache` one is revalidated (If-None-Match, a 304 the delegate sees as the
// stored 200 with its body), `no-store` is never kept, the cache-only policies behave, `willCacheResponse`
// decides what is kept, and an unsafe method invalidates.
@Suite struct CachePipelineTests {
    static let body = Array("cached body".utf8)

    static func nginx() throws -> NginxServer {
        try NginxServer(files: ["fresh.txt": body, "validated.txt": body, "private.txt": body], serverConfig: """
            location = /fresh.txt { expires 1h; }
            location = /validated.txt { add_header Cache-Control no-cache; }
            location = /private.txt { add_header Cache-Control no-store; }
            location = /form { add_header Cache-Control "max-age=3600" always; return 200 "form"; }
            """)
    }

    /// A session with its own memory cache.
    static func session(_ delegate: (any URLSessionDelegate)? = nil,
                        adjust: (URLSessionConfiguration) -> Void = { _ in }) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, directory: nil)
        adjust(configuration)
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    static func lines(_ path: String, _ server: NginxServer) -> [String] {
        server.accessLog.filter { $0.hasPrefix("\"GET \(path) ") }
    }

    @Test func aFreshResponseIsServedWithoutTheNetwork() throws {
        let server = try Self.nginx()
        let recorder = RecordingDataDelegate()
        let session = Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let url = URL(string: server.baseURL + "/fresh.txt")!
        for _ in 0..<2 {
            recorder.reset()
            session.dataTask(with: url).resume()
            #expect(recorder.waitForCompletion())
            #expect(recorder.log.withLock { $0.data } == Data(Self.body))
        }
        _ = server.accessLog(atLeast: 1) // nginx logs a request after its response went out
        #expect(Self.lines("/fresh.txt", server).count == 1, "\(server.accessLog)")
        let metrics = try #require(recorder.log.withLock { $0.metrics.last })
        #expect(metrics.transactionMetrics.map(\.resourceFetchType) == [.localCache])
        #expect(recorder.log.withLock { $0.messages.prefix(2) } == ["response 200", "data"])
    }

    @Test func aNoCacheResponseIsRevalidatedAndA304DeliversTheStoredBody() throws {
        let server = try Self.nginx()
        let session = Self.session()
        defer { session.invalidateAndCancel() }
        let request = URLRequest(url: URL(string: server.baseURL + "/validated.txt")!)
        let first = load(session, request), second = load(session, request)
        #expect(first.data == Data(Self.body))
        #expect(second.response?.statusCode == 200)
        #expect(second.data == Data(Self.body))
        let lines = server.accessLog(atLeast: 2).filter { $0.hasPrefix("\"GET /validated.txt ") }
        #expect(lines.count == 2)
        #expect(lines.last?.contains("\" 304 ") == true, "\(lines)")
        #expect(lines.last?.contains("inm=- ") == false, "the validation sent If-None-Match: \(lines)")
    }

    @Test func noStoreIsNeverKept() throws {
        let server = try Self.nginx()
        let session = Self.session()
        defer { session.invalidateAndCancel() }
        let request = URLRequest(url: URL(string: server.baseURL + "/private.txt")!)
        _ = load(session, request)
        _ = load(session, request)
        // nginx logs a request after its response went out: wait for both lines.
        let lines = server.accessLog(atLeast: 2).filter { $0.hasPrefix("\"GET /private.txt ") }
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains("\" 200 ") && $0.contains("inm=- ") })
    }

    @Test func returnCacheDataDontLoadFailsOnAMissAndServesAStoredResponse() throws {
        let server = try Self.nginx()
        let session = Self.session()
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: URL(string: server.baseURL + "/validated.txt")!)
        request.cachePolicy = .returnCacheDataDontLoad
        #expect(load(session, request).error?.code == .resourceUnavailable)
        #expect(server.accessLog.isEmpty)
        _ = load(session, URLRequest(url: request.url!))
        let cached = load(session, request)
        #expect(cached.data == Data(Self.body), "a no-cache response is still served under this policy")
        _ = server.accessLog(atLeast: 1)
        #expect(Self.lines("/validated.txt", server).count == 1)
    }

    @Test func theDelegateDecidesWhatIsCached() throws {
        final class Refuser: NSObject, URLSessionDataDelegate, @unchecked Sendable { // `offered` is a LockedBox
            let offered = LockedBox(0)
            func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                            willCacheResponse proposedResponse: CachedURLResponse,
                            completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void) {
                offered.withLock { $0 += 1 }
                completionHandler(nil)
            }
        }
        let server = try Self.nginx()
        let refuser = Refuser()
        let session = Self.session(refuser)
        defer { session.invalidateAndCancel() }
        let url = URL(string: server.baseURL + "/fresh.txt")!
        for _ in 0..<2 {
            let task = session.dataTask(with: url)
            task.resume()
            #expect(waitUntil(timeout: 5) { task.state == .completed })
        }
        #expect(refuser.offered.withLock { $0 } == 2)
        // nginx logs a request after its response went out: wait for both lines.
        let lines = server.accessLog(atLeast: 2).filter { $0.hasPrefix("\"GET /fresh.txt ") }
        #expect(lines.count == 2, "nothing was kept")
    }

    @Test func anUnsafeMethodInvalidatesTheStoredResponse() throws {
        let server = try Self.nginx()
        let session = Self.session()
        defer { session.invalidateAndCancel() }
        let url = URL(string: server.baseURL + "/form")!
        _ = load(session, URLRequest(url: url))
        _ = load(session, URLRequest(url: url))
        // nginx logs a request after its response went out: wait for the lines the network must have made
        // (a request the cache served never makes one, so a wrong count still shows).
        _ = server.accessLog(atLeast: 1)
        #expect(Self.lines("/form", server).count == 1, "the second GET came from the cache")
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        post.httpBody = Data("x".utf8)
        #expect(load(session, post).response?.statusCode == 200)
        _ = load(session, URLRequest(url: url))
        _ = server.accessLog(atLeast: 3)
        #expect(Self.lines("/form", server).count == 2, "the POST invalidated it: \(server.accessLog)")
    }
}
