// HTTPDate.swift
//
// HTTP-date (RFC 9110 §5.6.7) parsing, as the cache needs it for Date, Expires and Last-Modified. A
// recipient must accept three formats:
//
//     Sun, 06 Nov 1994 08:49:37 GMT    IMF-fixdate (the one senders generate)
//     Sunday, 06-Nov-94 08:49:37 GMT   obsolete RFC 850 format
//     Sun Nov  6 08:49:37 1994         obsolete ANSI C asctime() format
//
// Pure arithmetic on the proleptic Gregorian calendar in UTC: no DateFormatter, no locale, no time zone
// database. The day name is checked to be a day name but not against the date (senders get it wrong and
// the RFC gives it no meaning). A two-digit RFC 850 year is 19xx from 70 up and 20xx below 70 (a fixed
// pivot, rather than the RFC's "not more than 50 years in the future", which would make parsing depend
// on today's date). Anything else, such as the "0" some servers send in Expires, is nil: the caller
// decides what an invalid date means (for Expires, "already expired", RFC 9111 §5.3).

import Foundation

/// Parses HTTP-date field values (RFC 9110 §5.6.7).
enum HTTPDate {
    // MARK: Parsing

    /// The date `text` names in any of the three HTTP-date formats, or nil when it is none of them.
    static func parse(_ text: String) -> Date? {
        let tokens = text.trimmingHTTPWhitespace()
            .split { $0 == " " || $0 == "," || $0 == "-" }
            .map(String.init)
        guard let dayName = tokens.first, isDayName(dayName) else { return nil }
        switch tokens.count {
        case 6 where tokens[5] == "GMT":
            // IMF-fixdate or RFC 850: day-name day month year time GMT.
            return date(day: tokens[1], month: tokens[2], year: tokens[3], time: tokens[4])
        case 5:
            // asctime: day-name month day time year.
            guard tokens[4].utf8.count == 4 else { return nil }
            return date(day: tokens[2], month: tokens[1], year: tokens[4], time: tokens[3])
        default:
            return nil
        }
    }

    /// The date from its textual parts, or nil when a part is malformed or the date does not exist.
    private static func date(day: String, month: String, year: String, time: String) -> Date? {
        guard let day = number(day, digits: 1...2),
              let month = months.firstIndex(of: month).map({ $0 + 1 }),
              let year = fullYear(year),
              let seconds = secondsOfDay(time),
              (1...daysInMonth(month, year: year)).contains(day) else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + seconds))
    }

    /// A four-digit year as is; a two-digit (RFC 850) year with the fixed 1970 pivot.
    private static func fullYear(_ text: String) -> Int? {
        if let year = number(text, digits: 4...4) {
            return year
        }
        guard let short = number(text, digits: 2...2) else { return nil }
        return short >= 70 ? 1900 + short : 2000 + short
    }

    /// Seconds since midnight for `HH:MM:SS` (a leap second, 60, is accepted).
    private static func secondsOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3,
              let hour = number(parts[0], digits: 2...2), hour < 24,
              let minute = number(parts[1], digits: 2...2), minute < 60,
              let second = number(parts[2], digits: 2...2), second <= 60 else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// The decimal value of `text` when it is only ASCII digits, as many as `digits` allows.
    private static func number(_ text: String, digits: ClosedRange<Int>) -> Int? {
        let bytes = Array(text.utf8)
        guard digits.contains(bytes.count),
              bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    // MARK: Calendar

    /// The month names, January first.
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The short (IMF-fixdate, asctime) and long (RFC 850) day names.
    private static let dayNames: Set<String> = [
        "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]

    /// Whether `text` is a day name.
    private static func isDayName(_ text: String) -> Bool {
        dayNames.contains(text)
    }

    /// The number of days in `month` (1-12) of `year`.
    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return isLeap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    /// Days from 1970-01-01 to the given civil date (the days-from-civil algorithm on 400-year eras).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
