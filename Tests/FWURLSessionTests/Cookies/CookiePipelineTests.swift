import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// Cookies on the wire, against nginx: what a response sets is sent with the next request of the session —
// on every hop of a redirect chain too — unless the configuration or the request turns cookies off; the
// configuration's accept policy decides what may be set; sessions with their own storage share nothing.
// nginx logs a request after its response went out: each test reads the log once it has every request.
@Suite struct CookiePipelineTests {
    static func nginx() throws -> NginxServer {
        try NginxServer(files: ["page.txt": Array("page".utf8)], serverConfig: """
            location = /set { add_header Set-Cookie "session=abc; Path=/" always; return 200 "set"; }
            location = /set-secure { add_header Set-Cookie "secret=1; Path=/; Secure" always; return 200 "set"; }
            location = /hop { add_header Set-Cookie "hop=1; Path=/" always; return 302 /page.txt; }
            """)
    }

    static func get(_ path: String, _ server: NginxServer, _ session: URLSession,
                    adjust: (inout URLRequest) -> Void = { _ in }) throws {
        var request = URLRequest(url: URL(string: server.baseURL + path)!)
        adjust(&request)
        let result = load(session, request)
        #expect(result.error == nil)
    }

    @Test func aCookieSetByOneResponseGoesWithTheNextRequest() throws {
        let server = try Self.nginx()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        try Self.get("/set", server, session)
        try Self.get("/page.txt", server, session)
        let log = server.accessLog(atLeast: 2)
        #expect(log.last?.contains("cookie=session=abc user=") == true, "\(log)")
        #expect(session.configuration.httpCookieStorage?.cookies?.map(\.name) == ["session"])
    }

    @Test func aCookieSetByARedirectGoesWithTheRequestThatFollowsIt() throws {
        let server = try Self.nginx()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        try Self.get("/hop", server, session)
        let log = server.accessLog(atLeast: 2)
        #expect(log.first?.contains("cookie=- ") == true)
        #expect(log.last?.hasPrefix("\"GET /page.txt") == true)
        #expect(log.last?.contains("cookie=hop=1 ") == true, "\(log)")
    }

    @Test func aRequestsOwnCookieIsKeptBeforeTheStoredOnes() throws {
        let server = try Self.nginx()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        try Self.get("/set", server, session)
        try Self.get("/page.txt", server, session) { $0.setValue("mine=1", forHTTPHeaderField: "Cookie") }
        let log = server.accessLog(atLeast: 2)
        #expect(log.last?.contains("cookie=mine=1; session=abc ") == true, "\(log)")
    }

    struct Switch: Sendable, CustomTestStringConvertible {
        let why: String
        let configure: @Sendable (URLSessionConfiguration) -> Void
        let perRequest: Bool
        var testDescription: String { why }
    }

    static let switches = [
        Switch(why: "httpShouldSetCookies off", configure: { $0.httpShouldSetCookies = false }, perRequest: false),
        Switch(why: "the request's httpShouldHandleCookies off", configure: { _ in }, perRequest: true),
        Switch(why: "no storage", configure: { $0.httpCookieStorage = nil }, perRequest: false),
        Switch(why: "accept policy never", configure: { $0.httpCookieAcceptPolicy = .never }, perRequest: false),
    ]

    @Test(arguments: switches)
    func cookiesOffMeansNoneStoredAndNoneSent(_ row: Switch) throws {
        let server = try Self.nginx()
        let configuration = URLSessionConfiguration.ephemeral
        row.configure(configuration)
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        try Self.get("/set", server, session) { $0.httpShouldHandleCookies = !row.perRequest }
        try Self.get("/page.txt", server, session) { $0.httpShouldHandleCookies = !row.perRequest }
        let log = server.accessLog(atLeast: 2)
        #expect(log.last?.contains("cookie=- ") == true, "\(log)")
    }

    @Test func aSecureCookieIsNotTakenFromPlainHTTP() throws {
        let server = try Self.nginx()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        try Self.get("/set-secure", server, session)
        try Self.get("/page.txt", server, session)
        #expect(server.accessLog(atLeast: 2).last?.contains("cookie=- ") == true)
        #expect(session.configuration.httpCookieStorage?.cookies?.isEmpty == true)
    }

    @Test func ephemeralSessionsDoNotShareCookies() throws {
        let server = try Self.nginx()
        let first = URLSession(configuration: .ephemeral), second = URLSession(configuration: .ephemeral)
        defer {
            first.invalidateAndCancel()
            second.invalidateAndCancel()
        }
        try Self.get("/set", server, first)
        try Self.get("/page.txt", server, second)
        #expect(server.accessLog(atLeast: 2).last?.contains("cookie=- ") == true)
    }
}
