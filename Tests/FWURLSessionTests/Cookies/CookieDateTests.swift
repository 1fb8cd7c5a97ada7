// CookieDateTests.swift
//
// RFC 6265 §5.1.1: every date form servers send, one row per rule of the algorithm, and the dates it
// refuses. Expected values are seconds since 1970 (computed with Python's calendar.timegm).

import Foundation
@testable import FWURLSession
import Testing

@Suite struct CookieDateTests {
    /// 1994-11-06 08:49:37 UTC, the RFCs' example date.
    static let example: TimeInterval = 784_111_777

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", example),                  // RFC 1123 (IMF-fixdate)
        ("Sunday, 06-Nov-94 08:49:37 GMT", example),                 // RFC 850, two-digit year
        ("Sun Nov  6 08:49:37 1994", example),                       // asctime
        ("Sun, 06-Nov-1994 08:49:37 GMT", example),                  // Netscape's (Tomcat's) form
        ("06 Nov 1994 08:49:37", example),                           // no weekday, no zone
        ("Nov 6 1994 8:49:37", example),                             // one-digit day and hour
        ("Sun, 06 NOV 1994 08:49:37 GMT", example),                  // month in upper case
        ("Sun, 06 November 1994 08:49:37 GMT", example),             // full month name
        ("Sun, 6th Nov 1994 08:49:37 GMT", example),                 // day followed by non-digits
        ("Sun,06 Nov 1994 08:49:37GMT", example),                    // time followed by non-digits
        ("Sun/06/Nov/1994/08:49:37", example),                       // odd delimiters
        ("Sun, 06 Nov 1994 08:49:37 +0000", example),                // numeric zone ignored
        ("1994 Nov 06 08:49:37", example),                           // year before the day
        ("  Sun,   06   Nov   1994   08:49:37   GMT  ", example),    // extra whitespace
        ("Sun, 06 Nov 1994 08:09:07 GMT", 784_109_347),
        ("Sun, 06-Nov-94 8:9:7 GMT", 784_109_347),                   // one-digit minute and second
        ("Thu, 01 Jan 1970 00:00:01 GMT", 1),
        ("Thu, 01-Jan-70 00:00:01 GMT", 1),                          // 70 means 1970
        ("Sat, 01-Jan-00 00:00:00 GMT", 946_684_800),                // 00 means 2000
        ("Tue, 01 Jan 69 00:00:00 GMT", 3_124_224_000),              // 69 means 2069
        ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),              // a leap day
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("Mon, 01 Jan 1601 00:00:00 GMT", -11_644_473_600),          // the earliest year accepted
        ("Tue, 19 Jan 2038 03:14:08 GMT", 2_147_483_648),            // past 32-bit time
        ("Thu Jan 01 2037 00:00:00 GMT+0000 (Coordinated Universal Time)", 2_114_380_800), // JavaScript
    ])
    func parsesDateForms(_ text: String, _ seconds: TimeInterval) throws {
        let date = try #require(CookieDate.parse(text), "\(text)")
        #expect(date.timeIntervalSince1970 == seconds, "\(text)")
    }

    @Test(arguments: [
        "",                                   // nothing
        "garbage",                            // no part at all
        "Sun, 06 Nov 1994",                   // no time
        "Sun, 06 Nov 08:49:37 GMT",           // no year
        "Sun, Nov 1994 08:49:37 GMT",         // no day
        "Sun, 06 1994 08:49:37 GMT",          // no month
        "Sun, 06 Nox 1994 08:49:37 GMT",      // unknown month
        "Sun, 00 Nov 1994 08:49:37 GMT",      // day 0
        "Sun, 32 Nov 1994 08:49:37 GMT",      // day 32
        "Thu, 31 Apr 2020 00:00:00 GMT",      // April has 30 days
        "Mon, 29 Feb 2100 00:00:00 GMT",      // 2100 is not a leap year
        "Sun, 06 Nov 1600 08:49:37 GMT",      // before 1601
        "Sun, 06 Nov 994 08:49:37 GMT",       // three-digit year below 1601
        "Sun, 06 Nov 1994 24:00:00 GMT",      // hour 24
        "Sun, 06 Nov 1994 08:60:00 GMT",      // minute 60
        "Sun, 06 Nov 1994 08:49:60 GMT",      // second 60 (no leap seconds)
        "Sun, 06 Nov 1994 08:490:37 GMT",     // a three-digit time field
        "Sun, 06 Nov 19945 08:49:37 GMT",     // a five-digit year
        "1994-11-06T08:49:37Z",               // ISO 8601 is not a cookie-date
    ])
    func refusesWhatIsNoDate(_ text: String) {
        #expect(CookieDate.parse(text) == nil, "\(text)")
    }

    @Test func theFirstTokenOfEachKindWins() {
        // "07" is taken as the day, so the later "08" is ignored; the second time is ignored too.
        let date = CookieDate.parse("07 Nov 1994 08 08:49:37 09:00:00")
        #expect(date?.timeIntervalSince1970 == Self.example + 86_400)
    }

    @Test(arguments: [(1970, 1, 1, 0), (2000, 3, 1, 11_017), (1969, 12, 31, -1), (1601, 1, 1, -134_774)])
    func daysSinceEpochIsProlepticGregorian(_ year: Int, _ month: Int, _ day: Int, _ days: Int) {
        #expect(CookieDate.daysSinceEpoch(year: year, month: month, day: day) == days)
    }
}
