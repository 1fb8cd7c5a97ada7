// HTTPCookie+MatchingTests.swift
//
// RFC 6265 §5.1.3 (domain matching), §5.1.4 (paths) and §5.4 (which cookies a request carries, in which
// order), one row per rule.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPCookieMatchingTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func make(domain: String = "example.com", path: String = "/", secure: Bool = false,
                     expires: Date? = nil, ports: [Int]? = nil, created: Date = now) -> HTTPCookie {
        HTTPCookie(fields: HTTPCookie.Fields(
            name: "n", value: "v", domain: domain, path: path, expiresDate: expires, isSessionOnly: expires == nil,
            isSecure: secure, portList: ports, creationDate: created
        ))
    }

    // MARK: Rules

    @Test(arguments: [
        ("example.com", "example.com", true),
        ("www.example.com", "example.com", true),
        ("a.b.example.com", "example.com", true),
        ("notexample.com", "example.com", false),        // a suffix not at a label boundary
        ("example.com", "www.example.com", false),
        ("192.168.0.1", "192.168.0.1", true),
        ("192.168.0.1", "168.0.1", false),               // IP addresses only match themselves
        ("::1", "::1", true),
    ])
    func domainMatching(_ host: String, _ domain: String, _ matches: Bool) {
        #expect(HTTPCookie.domainMatches(host, domain) == matches, "\(host) ~ \(domain)")
    }

    @Test(arguments: [
        ("/", "/", true), ("/a", "/", true), ("/a", "/a", true), ("/a/", "/a", true), ("/a/b", "/a", true),
        ("/ab", "/a", false), ("/", "/a", false), ("/a/b", "/a/", true), ("/a", "/a/", false),
        ("/A", "/a", false),                             // paths compare with case
    ])
    func pathMatching(_ requestPath: String, _ cookiePath: String, _ matches: Bool) {
        #expect(HTTPCookie.pathMatches(requestPath, cookiePath) == matches, "\(requestPath) ~ \(cookiePath)")
    }

    @Test(arguments: [
        ("192.168.1.1", true), ("::1", true), ("[::1]", true), ("2001:db8::2", true), ("example.com", false),
        ("1.2.3", false), ("256.1.1.1", false), ("localhost", false),
    ])
    func recognisesIPAddresses(_ host: String, _ isIP: Bool) {
        #expect(HTTPCookie.isIPAddress(host) == isIP, "\(host)")
    }

    @Test(arguments: [("http://h/", 80), ("https://h/", 443), ("ws://h/", 80), ("wss://h/", 443),
                      ("http://h:8080/", 8080), ("ftp://h/", 0)])
    func portsDefaultByScheme(_ url: String, _ port: Int) throws {
        #expect(HTTPCookie.port(of: try #require(URL(string: url))) == port)
    }

    // MARK: Which cookies a request carries (§5.4 step 1)

    @Test(arguments: [
        ("example.com", "http://example.com/", true),               // host-only: the same host
        ("example.com", "http://www.example.com/", false),          // host-only: not a subdomain
        ("example.com", "http://EXAMPLE.com/", true),               // hosts compare without case
        (".example.com", "http://example.com/", true),              // domain cookie: the domain itself
        (".example.com", "http://a.b.example.com/", true),          // domain cookie: any subdomain
        (".example.com", "http://notexample.com/", false),
        (".example.com", "http://example.org/", false),
        ("192.168.0.1", "http://192.168.0.1/", true),
    ])
    func matchesTheDomain(_ domain: String, _ url: String, _ sent: Bool) throws {
        #expect(Self.make(domain: domain).isSent(to: try #require(URL(string: url)), now: Self.now) == sent)
    }

    @Test(arguments: [
        ("/docs", "http://example.com/docs", true), ("/docs", "http://example.com/docs/web", true),
        ("/docs", "http://example.com/docsets", false), ("/docs", "http://example.com/", false),
        ("/docs/", "http://example.com/docs/x", true), ("/", "http://example.com", true),
        ("/a%20b", "http://example.com/a%20b/c", true),
    ])
    func matchesThePath(_ path: String, _ url: String, _ sent: Bool) throws {
        #expect(Self.make(path: path).isSent(to: try #require(URL(string: url)), now: Self.now) == sent)
    }

    @Test(arguments: [("https://example.com/", true), ("wss://example.com/", true), ("http://example.com/", false),
                      ("ws://example.com/", false)])
    func secureCookiesGoOverSecureSchemesOnly(_ url: String, _ sent: Bool) throws {
        #expect(Self.make(secure: true).isSent(to: try #require(URL(string: url)), now: Self.now) == sent)
    }

    @Test func expiredCookiesAreNotSent() throws {
        let url = try #require(URL(string: "http://example.com/"))
        #expect(!Self.make(expires: Self.now).isSent(to: url, now: Self.now))
        #expect(!Self.make(expires: Self.now.addingTimeInterval(-1)).isSent(to: url, now: Self.now))
        #expect(Self.make(expires: Self.now.addingTimeInterval(1)).isSent(to: url, now: Self.now))
    }

    @Test(arguments: [("http://example.com/", true), ("http://example.com:8080/", false),
                      ("https://example.com/", false)])
    func aPortListLimitsThePorts(_ url: String, _ sent: Bool) throws {
        #expect(Self.make(ports: [80, 81]).isSent(to: try #require(URL(string: url)), now: Self.now) == sent)
    }

    @Test func anURLWithoutAHostGetsNoCookie() throws {
        #expect(!Self.make().isSent(to: try #require(URL(string: "file:///x")), now: Self.now))
    }

    // MARK: Order (§5.4 step 2)

    @Test func longerPathsFirstThenEarlierCreationThenStoringOrder() {
        let old = Self.make(path: "/a", created: Self.now)
        let newer = Self.make(path: "/a", created: Self.now.addingTimeInterval(5))
        let deep = Self.make(path: "/a/b", created: Self.now.addingTimeInterval(9))
        let root = Self.make(path: "/", created: Self.now.addingTimeInterval(-9))
        let sameInstant = Self.make(path: "/a", created: Self.now)
        let entries = [(root, UInt64(0)), (newer, 1), (sameInstant, 4), (old, 3), (deep, 2)]
        let sorted = entries.sorted(by: HTTPCookie.requestOrder).map(\.0)
        #expect(sorted.map { ObjectIdentifier($0) }
            == [deep, old, sameInstant, newer, root].map { ObjectIdentifier($0) })
    }
}
