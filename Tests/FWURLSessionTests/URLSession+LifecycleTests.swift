import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// `flush` and `reset` (they end the connections open now; reset also empties the storages), and a task of
// an invalidated session, which resuming does not start.
@Suite struct URLSessionLifecycleTests {
    private static func loadOnce(_ session: URLSession, _ server: LoopbackHTTPServer) {
        #expect(load(session, URLRequest(url: url(server, "/"))).response?.statusCode == 200)
        #expect(waitUntil(timeout: 5) { session.connectionPoolCounters(for: url(server, "/")).idle == 1 })
    }

    private static func wait(_ call: (@escaping @Sendable () -> Void) -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        call { done.signal() }
        return done.wait(timeout: .now() + 5) == .success
    }

    @Test func flushMakesLaterRequestsUseANewConnection() throws {
        let server = try LoopbackHTTPServer { _ in .ok("ok") }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        Self.loadOnce(session, server)
        #expect(Self.wait(session.flush))
        #expect(session.connectionPoolCounters(for: url(server, "/")).idle == 0)
        Self.loadOnce(session, server)
        #expect(server.connectionCount == 2)
    }

    @Test func resetEmptiesTheStoragesAndEndsTheConnections() throws {
        let server = try LoopbackHTTPServer { _ in .ok("ok") }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        Self.loadOnce(session, server)
        let storages = (session.configuration.httpCookieStorage, session.configuration.urlCredentialStorage,
                        session.configuration.urlCache)
        let space = URLProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "r",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let cookie = try #require(HTTPCookie(properties: [.name: "a", .value: "1", .path: "/",
                                                           .domain: "127.0.0.1"]))
        storages.0?.setCookie(cookie)
        storages.1?.set(URLCredential(user: "u", password: "p", persistence: .forSession), for: space)
        let response = URLResponse(url: url(server, "/c"), mimeType: nil, expectedContentLength: 1,
                                   textEncodingName: nil)
        storages.2?.storeCachedResponse(CachedURLResponse(response: response, data: Data("c".utf8)),
                                        for: URLRequest(url: url(server, "/c")))
        #expect(storages.0?.cookies?.count == 1)
        #expect(storages.1?.allCredentials.isEmpty == false)
        #expect(storages.2?.cachedResponse(for: URLRequest(url: url(server, "/c"))) != nil)

        #expect(Self.wait(session.reset))
        #expect(storages.0?.cookies?.isEmpty == true)
        #expect(storages.1?.allCredentials.isEmpty == true)
        #expect(storages.2?.cachedResponse(for: URLRequest(url: url(server, "/c"))) == nil)
        #expect(session.connectionPoolCounters(for: url(server, "/")).idle == 0)
        Self.loadOnce(session, server)
        #expect(server.connectionCount == 2)
    }

    @Test func resumingATaskOfAnInvalidatedSessionDoesNothing() throws {
        let server = try LoopbackHTTPServer { _ in .ok("ok") }
        defer { server.stop() }
        let recorder = ProtocolRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        session.finishTasksAndInvalidate()
        #expect(waitUntil(timeout: 5) { session.isInvalidated })
        let task = session.dataTask(with: url(server, "/"))
        task.resume()
        #expect(task.state == .suspended)
        #expect(task.error == nil)
        #expect(server.requestCount == 0)
    }
}
