// HTTPCookieTests.swift
//
// HTTPCookie's public surface: every FoundationNetworking property, the class methods that turn cookies
// into and out of header fields, equality and description.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPCookieTests {
    static func full() throws -> HTTPCookie {
        try #require(HTTPCookie(properties: [
            .name: "id", .value: "a3fWa", .domain: ".Example.com", .path: "/docs", .secure: "TRUE",
            .expires: Date(timeIntervalSince1970: 2_000_000_000), .comment: "c", .commentURL: "http://c.test/",
            .version: "1", .port: "443,8443", .maximumAge: "60", HTTPCookiePropertyKey("HttpOnly"): "TRUE",
            .sameSitePolicy: HTTPCookieStringPolicy.sameSiteStrict,
        ]))
    }

    @Test func exposesEveryProperty() throws {
        let cookie = try Self.full()
        #expect(cookie.name == "id")
        #expect(cookie.value == "a3fWa")
        #expect(cookie.domain == ".example.com")
        #expect(cookie.path == "/docs")
        #expect(cookie.isSecure)
        #expect(cookie.isHTTPOnly)
        #expect(cookie.comment == "c")
        #expect(cookie.commentURL == URL(string: "http://c.test/"))
        #expect(cookie.version == 1)
        #expect(cookie.portList == [NSNumber(value: 443), NSNumber(value: 8443)])
        #expect(cookie.sameSitePolicy == .sameSiteStrict)
        #expect(cookie.expiresDate != nil)
        #expect(!cookie.isSessionOnly)
        #expect(cookie.properties?[.name] as? String == "id")
        #expect(!cookie.isHostOnly)
        #expect(cookie.bareDomain == "example.com")
    }

    @Test func aHostOnlyCookieHasNoLeadingDot() throws {
        let cookie = try #require(HTTPCookie(properties: [.name: "a", .value: "b", .path: "/", .domain: "h.test"]))
        #expect(cookie.isHostOnly)
        #expect(cookie.bareDomain == "h.test")
    }

    // MARK: Class methods

    @Test func requestHeaderFieldsJoinNameValuePairsInOrder() throws {
        let first = try #require(HTTPCookie(properties: [.name: "b", .value: "2", .path: "/", .domain: "h"]))
        let second = try #require(HTTPCookie(properties: [.name: "a", .value: "1 x", .path: "/", .domain: "h"]))
        #expect(HTTPCookie.requestHeaderFields(with: [first, second]) == ["Cookie": "b=2; a=1 x"])
        #expect(HTTPCookie.requestHeaderFields(with: [first]) == ["Cookie": "b=2"])
        #expect(HTTPCookie.requestHeaderFields(with: []).isEmpty)
    }

    @Test func cookiesFromResponseHeaderFields() throws {
        let url = try #require(URL(string: "https://www.example.com/app/page"))
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: [
            "Content-Type": "text/html",
            "Set-Cookie": "sid=1; Path=/; Secure; HttpOnly, lang=en; Expires=Wed, 01 Jan 2031 00:00:00 GMT, "
                + "theme=dark; Domain=example.com; Max-Age=3600",
        ], for: url)
        #expect(cookies.map(\.name) == ["sid", "lang", "theme"])
        #expect(cookies[0].isSecure && cookies[0].isHTTPOnly && cookies[0].path == "/" && cookies[0].isSessionOnly)
        #expect(cookies[1].expiresDate == Date(timeIntervalSince1970: 1_924_992_000))
        #expect(cookies[1].path == "/app")
        #expect(cookies[1].domain == "www.example.com")
        #expect(cookies[2].domain == ".example.com")
        #expect(cookies[2].expiresDate != nil)
    }

    @Test func responseHeaderFieldNamesAreMatchedWithoutCase() throws {
        let url = try #require(URL(string: "http://h.test/"))
        #expect(HTTPCookie.cookies(withResponseHeaderFields: ["set-cookie": "a=1"], for: url).map(\.name) == ["a"])
        #expect(HTTPCookie.cookies(withResponseHeaderFields: ["Cookie": "a=1"], for: url).isEmpty)
    }

    @Test func responseCookiesForAPublicSuffixAreRefused() throws {
        let url = try #require(URL(string: "http://www.example.com/"))
        #expect(HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": "a=1; Domain=com"], for: url).isEmpty)
    }

    // MARK: Equality, description

    @Test func equalityIgnoresCreationAndOrigin() throws {
        let cookie = try Self.full()
        #expect(cookie == cookie.withCreationDate(.distantPast))
        #expect(cookie.hash == cookie.withCreationDate(.distantPast).hash)
        var changed = cookie.fields
        changed.value = "other"
        #expect(cookie != HTTPCookie(fields: changed))
        changed = cookie.fields
        changed.isHTTPOnly = false
        #expect(cookie != HTTPCookie(fields: changed))
        #expect(!cookie.isEqual("id"))
    }

    @Test func withCreationDateChangesOnlyTheCreationDate() throws {
        let cookie = try Self.full()
        let moved = cookie.withCreationDate(.distantPast)
        #expect(moved.creationDate == .distantPast)
        var expected = cookie.fields
        expected.creationDate = .distantPast
        #expect(moved.fields == expected)
    }

    @Test func describesEveryProperty() throws {
        let cookie = try #require(HTTPCookie(properties: [.name: "a", .value: "b", .path: "/p", .domain: "h.test"]))
        #expect(cookie.description == "<HTTPCookie version:0 name:\"a\" value:\"b\" expiresDate:nil sessionOnly:true "
            + "domain:\"h.test\" path:\"/p\" isSecure:false isHTTPOnly:false sameSitePolicy:nil comment:nil "
            + "ports:{ 0 }>")
        #expect(try Self.full().description.contains("ports:{ 443,8443 }"))
    }
}
