// SetCookieTests.swift
//
// RFC 6265 §5.2: the Set-Cookie grammar as a user agent parses it, one row per rule.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct SetCookieTests {
    // MARK: The name-value pair

    @Test(arguments: [
        ("a=b", "a", "b"),
        ("  a = b  ", "a", "b"),                       // WSP around name and value is trimmed
        ("a=", "a", ""),                               // an empty value
        ("a=b=c", "a", "b=c"),                         // the value runs past a second "="
        ("a=\"quoted\"", "a", "\"quoted\""),           // quotes stay in the value
        ("\ta=b\t; Path=/", "a", "b"),                 // HTAB is whitespace
        ("a=b c", "a", "b c"),                         // inner spaces stay
        ("SID=31d4d96e407aad42; Path=/; Domain=example.com", "SID", "31d4d96e407aad42"),
    ])
    func parsesTheNameValuePair(_ field: String, _ name: String, _ value: String) throws {
        let cookie = try #require(SetCookie(field), "\(field)")
        #expect(cookie.name == name)
        #expect(cookie.value == value)
    }

    @Test(arguments: [
        "ab",                                           // no "=": ignored
        "=b",                                           // empty name: ignored
        "  =b",                                         // name of whitespace only: ignored
        "",                                             // nothing
        "; Path=/",                                     // no pair before the attributes
        "a=b\u{01}c",                                   // a control character
        "a=b\nc",                                       // a line feed
        "a=b\u{7F}",                                    // DEL
        "a=" + String(repeating: "x", count: 4096),     // name and value longer than 4096 bytes
    ])
    func ignoresFieldsAUserAgentIgnores(_ field: String) {
        #expect(SetCookie(field) == nil, "\(field.prefix(40))")
    }

    @Test func aNameAndValueOfExactly4096BytesIsAccepted() {
        #expect(SetCookie("a=" + String(repeating: "x", count: 4095)) != nil)
    }

    // MARK: Attributes

    @Test func readsEveryAttributeWithoutCase() throws {
        let cookie = try #require(SetCookie(
            "a=b; PATH=/p; dOmAiN=.Example.COM; SECURE; httponly; SameSite=Lax; MAX-AGE=10; "
                + "expires=Sun, 06 Nov 1994 08:49:37 GMT; Comment=hi; CommentURL=http://c.test/; Discard; "
                + "Port=\"80,8080\"; Version=1"
        ))
        #expect(cookie.path == "/p")
        #expect(cookie.domain == "example.com")
        #expect(cookie.isSecure)
        #expect(cookie.isHTTPOnly)
        #expect(cookie.sameSite == .sameSiteLax)
        #expect(cookie.maxAge == 10)
        #expect(cookie.expires == Date(timeIntervalSince1970: CookieDateTests.example))
        #expect(cookie.comment == "hi")
        #expect(cookie.commentURL == URL(string: "http://c.test/"))
        #expect(cookie.discard)
        #expect(cookie.ports == [80, 8080])
        #expect(cookie.version == 1)
    }

    @Test func withoutAttributesNothingIsSet() throws {
        let cookie = try #require(SetCookie("a=b"))
        #expect(cookie.path == nil)
        #expect(cookie.domain == nil)
        #expect(cookie.expires == nil)
        #expect(cookie.maxAge == nil)
        #expect(!cookie.isSecure)
        #expect(!cookie.isHTTPOnly)
        #expect(cookie.sameSite == nil)
        #expect(!cookie.discard)
        #expect(cookie.version == 0)
    }

    @Test(arguments: [
        ("a=b; Path=/x", "/x"),
        ("a=b; Path = /x ", "/x"),                      // whitespace around "=" and the value
        ("a=b; Path=x", nil),                           // not starting with "/": the default path
        ("a=b; Path=", nil),                            // empty: the default path
        ("a=b; Path=/x; Path=/y", "/y"),                // the last one wins
        ("a=b; Path=/x; Path=y", nil),                  // a later invalid one means the default path
        ("a=b; Path=/x;;", "/x"),                       // empty attributes are skipped
    ] as [(String, String?)])
    func readsPath(_ field: String, _ path: String?) throws {
        #expect(try #require(SetCookie(field)).path == path, "\(field)")
    }

    @Test(arguments: [
        ("a=b; Domain=example.com", "example.com"),
        ("a=b; Domain=.example.com", "example.com"),    // a leading dot is dropped
        ("a=b; Domain=EXAMPLE.com", "example.com"),     // lower-cased
        ("a=b; Domain=", nil),                          // empty: ignored
        ("a=b; Domain=a.test; Domain=", "a.test"),      // an empty one does not reset an earlier one
        ("a=b; Domain=a.test; Domain=b.test", "b.test"),
    ] as [(String, String?)])
    func readsDomain(_ field: String, _ domain: String?) throws {
        #expect(try #require(SetCookie(field)).domain == domain, "\(field)")
    }

    @Test(arguments: [
        ("a=b; Max-Age=10", 10),
        ("a=b; Max-Age=0", 0),
        ("a=b; Max-Age=-1", -1),
        ("a=b; Max-Age=+10", nil),                      // must start with a digit or "-"
        ("a=b; Max-Age=1e3", nil),                      // digits only
        ("a=b; Max-Age=", nil),
        ("a=b; Max-Age=-", nil),
        ("a=b; Max-Age=10; Max-Age=x", 10),             // an invalid one is ignored
        ("a=b; Max-Age=99999999999999999999", Int64.max), // clamped
        ("a=b; Max-Age=-99999999999999999999", Int64.min),
    ] as [(String, Int64?)])
    func readsMaxAge(_ field: String, _ maxAge: Int64?) throws {
        #expect(try #require(SetCookie(field)).maxAge == maxAge, "\(field)")
    }

    @Test(arguments: [
        ("a=b; Expires=Sun, 06 Nov 1994 08:49:37 GMT", CookieDateTests.example),
        ("a=b; Expires=not a date", nil),
        ("a=b; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Expires=bogus", CookieDateTests.example),
    ] as [(String, TimeInterval?)])
    func readsExpires(_ field: String, _ seconds: TimeInterval?) throws {
        #expect(try #require(SetCookie(field)).expires?.timeIntervalSince1970 == seconds, "\(field)")
    }

    @Test(arguments: [
        ("a=b; SameSite=Strict", HTTPCookieStringPolicy.sameSiteStrict),
        ("a=b; samesite=lax", .sameSiteLax),
        ("a=b; SameSite=NONE", .sameSiteNone),
        ("a=b; SameSite=bogus", nil),
        ("a=b; SameSite", nil),
    ] as [(String, HTTPCookieStringPolicy?)])
    func readsSameSite(_ field: String, _ policy: HTTPCookieStringPolicy?) throws {
        #expect(try #require(SetCookie(field)).sameSite == policy, "\(field)")
    }

    @Test(arguments: ["a=b; Secure=no", "a=b; secure", "a=b;Secure"])
    func secureIsAFlagWhateverItsValue(_ field: String) throws {
        #expect(try #require(SetCookie(field)).isSecure)
    }

    @Test func unknownAttributesAreIgnored() throws {
        let cookie = try #require(SetCookie("a=b; Foo=bar; Baz; Priority=High; Partitioned"))
        #expect(cookie == SetCookie("a=b"))
    }

    @Test func anAttributeValueOver1024BytesIsIgnored() throws {
        let long = "/" + String(repeating: "p", count: 1024)
        #expect(try #require(SetCookie("a=b; Path=/ok; Path=\(long)")).path == "/ok")
        #expect(try #require(SetCookie("a=b; Path=\(long.dropLast())")).path == String(long.dropLast()))
    }
}
