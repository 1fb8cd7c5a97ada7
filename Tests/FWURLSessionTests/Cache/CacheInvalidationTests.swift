// CacheInvalidationTests.swift
//
// CacheInvalidation: which stored responses an unsafe request invalidates (RFC 9111 §4.4): its target on a
// 2xx or 3xx, plus same-origin Location and Content-Location; nothing for safe methods or errors.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct CacheInvalidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var rule: String
        var method: String
        var status = 200
        var fields: [(String, String)] = []
        var urls: [String]
        var testDescription: String { rule }
    }

    static let target = "https://example.com/items/1"

    static let cases: [Case] = [
        Case(rule: "GET invalidates nothing", method: "GET", urls: []),
        Case(rule: "HEAD invalidates nothing", method: "HEAD", urls: []),
        Case(rule: "OPTIONS invalidates nothing", method: "OPTIONS", urls: []),
        Case(rule: "TRACE invalidates nothing", method: "TRACE", urls: []),
        Case(rule: "POST 200 invalidates the target", method: "POST", urls: [target]),
        Case(rule: "PATCH 204", method: "PATCH", status: 204, urls: [target]),
        Case(rule: "PUT 303", method: "PUT", status: 303, urls: [target]),
        Case(rule: "DELETE 404 is an error", method: "DELETE", status: 404, urls: []),
        Case(rule: "POST 500 is an error", method: "POST", status: 500, urls: []),
        Case(rule: "relative Location, same origin", method: "POST", status: 201,
             fields: [("Location", "/items/2")], urls: [target, "https://example.com/items/2"]),
        Case(rule: "Content-Location with the default port", method: "PUT",
             fields: [("Content-Location", "https://EXAMPLE.com:443/items/1/v2")],
             urls: [target, "https://EXAMPLE.com:443/items/1/v2"]),
        Case(rule: "another host is not invalidated", method: "POST",
             fields: [("Location", "https://other.example/items/2")], urls: [target]),
        Case(rule: "another scheme is not invalidated", method: "POST",
             fields: [("Location", "http://example.com/items/2")], urls: [target]),
        Case(rule: "another port is not invalidated", method: "POST",
             fields: [("Location", "https://example.com:8443/items/2")], urls: [target]),
        Case(rule: "the target once", method: "DELETE", fields: [("Content-Location", "/items/1")],
             urls: [target]),
    ]

    @Test(arguments: cases)
    func unsafeRequestsInvalidate(_ testCase: Case) {
        let request = CacheFixtures.request(Self.target, method: testCase.method)
        let response = CacheFixtures.response(Self.target, status: testCase.status, testCase.fields)
        let urls = CacheInvalidation.invalidatedURLs(request: request, response: response)
        #expect(urls.map(\.absoluteString) == testCase.urls)
    }
}
