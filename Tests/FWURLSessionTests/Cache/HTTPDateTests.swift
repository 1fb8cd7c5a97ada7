// HTTPDateTests.swift
//
// HTTPDate: the three formats RFC 9110 §5.6.7 requires recipients to accept, calendar edges, the fixed
// two-digit-year pivot, and what is not a date (nil, which Expires reads as "already expired").

import Foundation
import Testing
@testable import FWURLSession

@Suite struct HTTPDateTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var seconds: TimeInterval?
        var testDescription: String { "\"\(text)\"" }
    }

    static let validCases: [Case] = [
        Case(text: "Sun, 06 Nov 1994 08:49:37 GMT", seconds: 784_111_777),
        Case(text: "Sunday, 06-Nov-94 08:49:37 GMT", seconds: 784_111_777),
        Case(text: "Sun Nov  6 08:49:37 1994", seconds: 784_111_777),
        Case(text: "  Sun, 06 Nov 1994 08:49:37 GMT ", seconds: 784_111_777),
        Case(text: "Thu, 01 Jan 1970 00:00:00 GMT", seconds: 0),
        Case(text: "Wed, 31 Dec 1969 23:59:59 GMT", seconds: -1),
        Case(text: "Tue, 29 Feb 2000 12:00:00 GMT", seconds: 951_825_600),
        Case(text: "Fri, 31 Dec 9999 23:59:59 GMT", seconds: 253_402_300_799),
        Case(text: "Thursday, 01-Jan-70 00:00:00 GMT", seconds: 0),
        Case(text: "Wednesday, 01-Jan-69 00:00:00 GMT", seconds: 3_124_224_000),
        Case(text: "Sat, 31 Dec 2016 23:59:60 GMT", seconds: 1_483_228_800),
    ]

    @Test(arguments: validCases)
    func parsesEveryFormat(_ testCase: Case) throws {
        let date = try #require(HTTPDate.parse(testCase.text))
        #expect(date.timeIntervalSince1970 == testCase.seconds)
    }

    static let invalidCases: [String] = [
        "", "0", "-1", "now",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37",
        "Sun, 31 Apr 1994 08:49:37 GMT",
        "Mon, 29 Feb 1900 08:49:37 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 nov 1994 08:49:37 GMT",
        "Funday, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT",
        "Sun, 06 Nov 994 08:49:37 GMT",
        "Sun, 06 Nov +994 08:49:37 GMT",
        "Sun Nov  6 08:49:37 94",
        "Sun, 06 Nov 1994 08:49:37 GMT extra",
    ]

    @Test(arguments: invalidCases)
    func rejectsWhatIsNotAnHTTPDate(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func agreesWithDateFormatterAcrossFourCenturies() {
        var seconds: TimeInterval = -2_208_988_800 // 1900-01-01
        while seconds < 10_413_792_000 { // 2300-01-01
            let text = CacheFixtures.httpDate(seconds - CacheFixtures.epoch.timeIntervalSince1970)
            #expect(HTTPDate.parse(text)?.timeIntervalSince1970 == seconds, "\(text)")
            seconds += 7_777_777
        }
    }
}
