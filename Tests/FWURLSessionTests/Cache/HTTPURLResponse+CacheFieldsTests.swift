// HTTPURLResponse+CacheFieldsTests.swift
//
// The singleton fields the cache reads: the first field line counts (a joined value of two dates could not
// be split again), values are trimmed, and unparsable dates are nil.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct HTTPURLResponseCacheFieldsTests {
    @Test func theFirstFieldLineCounts() {
        let response = CacheFixtures.response([
            ("date", " Sun, 06 Nov 1994 08:49:37 GMT "),
            ("Date", "Mon, 07 Nov 1994 08:49:37 GMT"),
        ])
        #expect(response.firstValue(forHTTPHeaderField: "DATE") == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(response.dateFieldValue == CacheFixtures.epoch)
    }

    @Test func missingOrInvalidDatesAreNil() {
        let response = CacheFixtures.response([("Last-Modified", "yesterday")])
        #expect(response.firstValue(forHTTPHeaderField: "Date") == nil)
        #expect(response.dateFieldValue == nil)
        #expect(response.lastModifiedFieldValue == nil)
    }

    @Test func lastModifiedIsParsed() {
        let response = CacheFixtures.response([("Last-Modified", CacheFixtures.httpDate(-3600))])
        #expect(response.lastModifiedFieldValue == CacheFixtures.date(-3600))
    }
}
