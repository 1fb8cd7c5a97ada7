// HTTPCookie+HeaderFieldsTests.swift
//
// Splitting Set-Cookie fields that a header dictionary joined with commas, and the Cookie field value.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPCookieHeaderFieldsTests {
    @Test(arguments: [
        ("a=1", ["a=1"]),
        ("a=1, b=2", ["a=1", "b=2"]),
        ("a=1,b=2", ["a=1", "b=2"]),
        ("a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT, b=2", ["a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT", "b=2"]),
        ("a=1; Expires=Sunday, 06-Nov-94 08:49:37 GMT", ["a=1; Expires=Sunday, 06-Nov-94 08:49:37 GMT"]),
        ("a=x,y", ["a=x,y"]),                                    // a comma not followed by `token =`
        ("a=1,  b = 2", ["a=1", "b = 2"]),                       // whitespace around the next name
        ("a=1, , b=2", ["a=1,", "b=2"]),
        ("a=1,", ["a=1,"]),
        (" , a=1", ["a=1"]),                                     // empty pieces are dropped
        ("", []),
    ])
    func splitsJoinedFields(_ joined: String, _ fields: [String]) {
        #expect(HTTPCookie.splitJoinedFields(joined) == fields, "\(joined)")
    }

    @Test func collectsSetCookieUnderAnySpelling() {
        let fields = HTTPCookie.setCookieFields(in: ["Set-Cookie": "a=1, b=2", "SET-COOKIE": "c=3", "X": "d=4"])
        #expect(fields.sorted() == ["a=1", "b=2", "c=3"])
    }

    @Test func theCookieFieldValue() throws {
        let cookies = try ["x", "y"].map { name in
            try #require(HTTPCookie(properties: [.name: name, .value: "v\(name)", .path: "/", .domain: "h"]))
        }
        #expect(HTTPCookie.cookieFieldValue(cookies) == "x=vx; y=vy")
        #expect(HTTPCookie.cookieFieldValue([]) == nil)
    }
}
