// HTTPCookiePropertyKeyTests.swift
//
// The property keys, SameSite policies and accept policies carry Foundation's raw values.

@testable import FWURLSession
import Testing

@Suite struct HTTPCookiePropertyKeyTests {
    @Test(arguments: [
        (HTTPCookiePropertyKey.name, "Name"), (.value, "Value"), (.originURL, "OriginURL"), (.version, "Version"),
        (.domain, "Domain"), (.path, "Path"), (.secure, "Secure"), (.expires, "Expires"), (.comment, "Comment"),
        (.commentURL, "CommentURL"), (.discard, "Discard"), (.maximumAge, "Max-Age"), (.port, "Port"),
        (.sameSitePolicy, "SameSite"), (.httpOnly, "HttpOnly"), (.created, "Created"),
    ])
    func keysHaveFoundationsRawValues(_ key: HTTPCookiePropertyKey, _ rawValue: String) {
        #expect(key.rawValue == rawValue)
        #expect(HTTPCookiePropertyKey(rawValue) == key)
        #expect(HTTPCookiePropertyKey(rawValue: rawValue) == key)
    }

    @Test(arguments: [
        (HTTPCookieStringPolicy.sameSiteLax, "lax"), (.sameSiteStrict, "strict"), (.sameSiteNone, "none"),
    ])
    func sameSitePoliciesHaveFoundationsRawValues(_ policy: HTTPCookieStringPolicy, _ rawValue: String) {
        #expect(policy.rawValue == rawValue)
        #expect(HTTPCookieStringPolicy(rawValue) == policy)
        #expect(HTTPCookieStringPolicy(attributeValue: rawValue.uppercased()) == policy)
    }

    @Test func unknownSameSiteValuesAreNoPolicy() {
        #expect(HTTPCookieStringPolicy(attributeValue: "sometimes") == nil)
        #expect(HTTPCookieStringPolicy(attributeValue: "") == nil)
    }

    @Test(arguments: [(HTTPCookie.AcceptPolicy.always, UInt(0)), (.never, 1), (.onlyFromMainDocumentDomain, 2)])
    func acceptPoliciesHaveFoundationsRawValues(_ policy: HTTPCookie.AcceptPolicy, _ rawValue: UInt) {
        #expect(policy.rawValue == rawValue)
    }
}
