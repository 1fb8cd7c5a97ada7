// HTTPCookie+SetCookieTests.swift
//
// RFC 6265 §5.3 steps 2-9 (and RFC 6265bis' Secure and prefix rules): what a Set-Cookie field from a
// given URL becomes, one row per rule.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPCookieSetCookieTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    /// A small list with each kind of rule.
    static let rules = PublicSuffixList(rules: "com\nuk\nco.uk\ngithub.io\n*.ck\n!www.ck\nlocalhost\n")

    func cookie(_ field: String, from url: String,
                suffixes: PublicSuffixList = HTTPCookieSetCookieTests.rules) throws -> HTTPCookie? {
        let url = try #require(URL(string: url))
        let parsed = try #require(SetCookie(field))
        return HTTPCookie.cookie(from: parsed, for: url, now: Self.now, publicSuffixes: suffixes)
    }

    // MARK: Domain (steps 4-6)

    @Test(arguments: [
        ("a=b", "http://www.example.com/", "www.example.com"),                     // no Domain: host-only
        ("a=b", "http://WWW.Example.COM/", "www.example.com"),                     // canonical (lower-case) host
        ("a=b; Domain=example.com", "http://www.example.com/", ".example.com"),    // a parent domain
        ("a=b; Domain=.example.com", "http://www.example.com/", ".example.com"),   // leading dot dropped, re-added
        ("a=b; Domain=www.example.com", "http://www.example.com/", ".www.example.com"), // the host itself
        ("a=b; Domain=EXAMPLE.com", "http://a.b.example.com/", ".example.com"),
        ("a=b; Domain=192.168.0.1", "http://192.168.0.1/", "192.168.0.1"),         // an IP: host-only
        ("a=b; Domain=::1", "http://[::1]:8080/", "::1"),                          // IPv6: host-only
        ("a=b; Domain=github.io", "https://github.io/", "github.io"),              // a public suffix that is
        ("a=b; Domain=localhost", "http://localhost:8080/", "localhost"),          //   the host: host-only
        ("a=b; Domain=www.ck", "http://a.www.ck/", ".www.ck"),                     // an exception rule
    ] as [(String, String, String)])
    func acceptsTheDomain(_ field: String, _ url: String, _ domain: String) throws {
        #expect(try cookie(field, from: url)?.domain == domain, "\(field) from \(url)")
    }

    @Test(arguments: [
        ("a=b; Domain=other.com", "http://www.example.com/"),         // unrelated domain
        ("a=b; Domain=ample.com", "http://example.com/"),             // a suffix, not at a dot
        ("a=b; Domain=sub.example.com", "http://example.com/"),       // a subdomain of the host
        ("a=b; Domain=com", "http://example.com/"),                   // a public suffix
        ("a=b; Domain=.com", "http://example.com/"),
        ("a=b; Domain=co.uk", "http://foo.co.uk/"),                   // a two-label public suffix
        ("a=b; Domain=github.io", "https://user.github.io/"),         // the list's private section
        ("a=b; Domain=anything.ck", "http://a.anything.ck/"),         // a wildcard rule
        ("a=b; Domain=168.0.1", "http://192.168.0.1/"),               // a suffix of an IP address
        ("a=b; Domain=0.1", "http://192.168.0.1/"),
    ])
    func refusesTheDomain(_ field: String, _ url: String) throws {
        #expect(try cookie(field, from: url) == nil, "\(field) from \(url)")
    }

    @Test func theSystemListRefusesRealPublicSuffixes() throws {
        try #require(PublicSuffixList.system.hasRules, "install the publicsuffix package (Scripts/install-deps.sh)")
        for (field, url) in [("a=b; Domain=co.uk", "http://www.foo.co.uk/"),
                             ("a=b; Domain=github.io", "https://a.github.io/"), ("a=b; Domain=com", "http://example.com/")] {
            #expect(try cookie(field, from: url, suffixes: .system) == nil, "\(field)")
        }
        #expect(try cookie("a=b; Domain=foo.co.uk", from: "http://www.foo.co.uk/", suffixes: .system)?.domain
            == ".foo.co.uk")
    }

    @Test(arguments: [("a=b; Domain=com", "http://example.com/", false),
                      ("a=b; Domain=localhost", "http://localhost/", true),
                      ("a=b; Domain=example.com", "http://www.example.com/", true)])
    func withoutAListSingleLabelDomainsAreRefused(_ field: String, _ url: String, _ accepted: Bool) throws {
        #expect(try (cookie(field, from: url, suffixes: .singleLabel) != nil) == accepted, "\(field)")
    }

    // MARK: Path (step 7)

    @Test(arguments: [
        ("a=b", "http://h.test/a/b/c", "/a/b"),
        ("a=b", "http://h.test/a/b/", "/a/b"),
        ("a=b", "http://h.test/a", "/"),
        ("a=b", "http://h.test/", "/"),
        ("a=b", "http://h.test", "/"),
        ("a=b", "http://h.test/a%20b/c?q=/x", "/a%20b"),        // encoded, without the query
        ("a=b; Path=/x/y", "http://h.test/a/b", "/x/y"),
        ("a=b; Path=x", "http://h.test/a/b", "/a"),             // invalid Path: the default path
    ])
    func setsThePath(_ field: String, _ url: String, _ path: String) throws {
        #expect(try cookie(field, from: url)?.path == path, "\(field) from \(url)")
    }

    // MARK: Expiry (step 3)

    @Test func maxAgeWinsOverExpiresWhateverTheOrder() throws {
        for field in ["a=b; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=60",
                      "a=b; Max-Age=60; Expires=Sun, 06 Nov 1994 08:49:37 GMT"] {
            let made = try #require(try cookie(field, from: "http://h.test/"))
            #expect(made.expiresDate == Self.now.addingTimeInterval(60))
            #expect(!made.isSessionOnly)
        }
    }

    @Test(arguments: ["a=b; Max-Age=0", "a=b; Max-Age=-5"])
    func aNonPositiveMaxAgeExpiresAtOnce(_ field: String) throws {
        let made = try #require(try cookie(field, from: "http://h.test/"))
        #expect(made.isExpired(at: Self.now))
        #expect(!made.isSessionOnly)
    }

    @Test func expiresSetsTheExpiry() throws {
        let made = try #require(try cookie("a=b; Expires=Wed, 01 Jan 2031 00:00:00 GMT", from: "http://h.test/"))
        #expect(made.expiresDate == Date(timeIntervalSince1970: 1_924_992_000))
        #expect(!made.isSessionOnly)
    }

    @Test func withoutExpiryTheCookieIsSessionOnly() throws {
        let made = try #require(try cookie("a=b", from: "http://h.test/"))
        #expect(made.expiresDate == nil)
        #expect(made.isSessionOnly)
        #expect(try cookie("a=b; Max-Age=60; Discard", from: "http://h.test/")?.isSessionOnly == true)
    }

    @Test func aHugeMaxAgeIsClamped() throws {
        let made = try #require(try cookie("a=b; Max-Age=99999999999999999999", from: "http://h.test/"))
        #expect(made.expiresDate == .distantFuture)
    }

    // MARK: Secure, HttpOnly, SameSite, prefixes (steps 8-9, RFC 6265bis)

    @Test(arguments: [
        ("a=b; Secure", "https://h.test/", true), ("a=b; Secure", "wss://h.test/", true),
        ("a=b; Secure", "http://h.test/", false), ("a=b; Secure", "ws://h.test/", false),
        ("a=b", "http://h.test/", true),
    ])
    func aSecureCookieIsOnlySetFromASecureScheme(_ field: String, _ url: String, _ accepted: Bool) throws {
        #expect(try (cookie(field, from: url) != nil) == accepted, "\(field) from \(url)")
    }

    @Test(arguments: [
        ("__Secure-a=b; Secure", true), ("__Secure-a=b", false), ("__SECURE-a=b", false),
        ("__Host-a=b; Secure; Path=/", true), ("__Host-a=b; Secure", false),
        ("__Host-a=b; Secure; Path=/x", false), ("__Host-a=b; Secure; Path=/; Domain=h.test", false),
        ("__host-a=b; Path=/", false),
    ])
    func namePrefixesImposeTheirRules(_ field: String, _ accepted: Bool) throws {
        #expect(try (cookie(field, from: "https://h.test/") != nil) == accepted, "\(field)")
    }

    @Test func copiesTheFlagsAndAttributes() throws {
        let made = try #require(try cookie(
            "a=b; Secure; HttpOnly; SameSite=Strict; Comment=c; Port=\"443\"; Version=1", from: "https://h.test/x/y"
        ))
        #expect(made.isSecure)
        #expect(made.isHTTPOnly)
        #expect(made.sameSitePolicy == .sameSiteStrict)
        #expect(made.comment == "c")
        #expect(made.portList == [443])
        #expect(made.version == 1)
        #expect(made.creationDate == Self.now)
        #expect(made.fields.originURL == URL(string: "https://h.test/x/y"))
    }

    @Test func anURLWithoutAHostSetsNothing() throws {
        #expect(try cookie("a=b", from: "file:///tmp/x") == nil)
    }

    @Test func fieldsAreReadOneCookieEach() throws {
        let url = try #require(URL(string: "https://h.test/"))
        let cookies = HTTPCookie.cookies(
            fromSetCookieFields: ["a=1", "ignored", "b=2; Expires=Wed, 01 Jan 2031 00:00:00 GMT", "c=3, d=4"],
            for: url, now: Self.now, publicSuffixes: Self.rules
        )
        #expect(cookies.map(\.name) == ["a", "b", "c"])
        #expect(cookies.last?.value == "3, d=4")
    }
}
