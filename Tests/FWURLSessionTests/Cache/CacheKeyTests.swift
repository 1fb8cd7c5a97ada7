// CacheKeyTests.swift
//
// CacheKey: the absolute URL without its fragment, GET requests only for storing and lookup, and the
// SHA-256 file stem.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct CacheKeyTests {
    @Test(arguments: [
        ("https://example.com/a", "https://example.com/a"),
        ("https://example.com/a#section", "https://example.com/a"),
        ("https://example.com/a?q=1#x#y", "https://example.com/a?q=1"),
        ("https://example.com/a?q=2", "https://example.com/a?q=2"),
        ("http://example.com:8080/", "http://example.com:8080/"),
    ])
    func theKeyIsTheURLWithoutFragment(url: String, key: String) {
        #expect(CacheKey(url: URL(string: url)!).string == key)
    }

    @Test(arguments: [("GET", true), ("get", true), ("HEAD", false), ("POST", false), ("PUT", false)])
    func onlyGETRequestsAreStoredAndLookedUp(method: String, hasKey: Bool) {
        let request = CacheFixtures.request(method: method)
        #expect((CacheKey(storableRequest: request) != nil) == hasKey)
    }

    @Test func theFileStemIsTheSHA256OfTheKey() {
        let key = CacheKey(url: URL(string: "https://example.com/a#f")!)
        #expect(key.fileStem == "2dce0a4c50441bfccfa9caf4b58c3cba6e06c420505dd829f0436de1aa44baac")
        #expect(key.fileStem == CacheKey(url: URL(string: "https://example.com/a")!).fileStem)
        #expect(key.fileStem != CacheKey(url: URL(string: "https://example.com/b")!).fileStem)
    }
}
