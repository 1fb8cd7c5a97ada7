// CookieDate.swift
//
// The cookie-date algorithm of RFC 6265 §5.1.1, which reads every date format servers send (RFC 1123
// "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT", asctime "Sun Nov  6 08:49:37
// 1994", and their variants with other separators, one-digit fields or trailing junk).
//
// The text is split into tokens at delimiters (HTAB, SP-"/", ";"-"@", "["-"`", "{"-"~"). Each token is
// tried, in order, as the time (h:m:s, one or two digits each), the day of the month (one or two digits),
// the month (its first three letters, any case) and the year (two to four digits), and fills the first of
// those still missing; each may be followed by any non-digit text. Years 70-99 mean 19xx, 0-69 mean 20xx.
// A date without all four parts, with a field out of range (day 1-31, year >= 1601, hour <= 23, minute
// and second <= 59) or that does not exist (February 30) is no date. Dates are UTC. A pure function.

import Foundation

// MARK: - CookieDate

/// RFC 6265 §5.1.1's cookie-date parser.
enum CookieDate {
    /// The date `text` names, or nil when it names none.
    static func parse(_ text: String) -> Date? {
        var found = Found()
        for token in tokens(of: Array(text.utf8)) {
            found.take(token)
        }
        return found.date
    }

    /// The runs of non-delimiter bytes in `bytes`.
    static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: isDelimiter)
    }

    /// RFC 6265's delimiter: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
    static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: true
        default: false
        }
    }

    // MARK: The parts found so far

    /// The parts of a date found so far.
    private struct Found {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?

        /// Fills the first missing part `token` matches.
        mutating func take(_ token: ArraySlice<UInt8>) {
            if time == nil, let parsed = CookieDate.time(token) {
                time = parsed
            } else if day == nil, let parsed = CookieDate.digits(token, count: 1...2) {
                day = parsed
            } else if month == nil, let parsed = CookieDate.month(token) {
                month = parsed
            } else if year == nil, let parsed = CookieDate.digits(token, count: 2...4) {
                year = parsed
            }
        }

        /// The date, when every part is present and in range.
        var date: Date? {
            guard let time, let day, let month, var year else { return nil }
            if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
            guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
                  day <= CookieDate.daysIn(month: month, year: year)
            else { return nil }
            let days = CookieDate.daysSinceEpoch(year: year, month: month, day: day)
            let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }

    // MARK: Token grammars

    /// `count` digits at the start of `token`, followed by nothing or by a non-digit.
    static func digits(_ token: ArraySlice<UInt8>, count: ClosedRange<Int>) -> Int? {
        let run = token.prefix { isDigit($0) }
        guard count.contains(run.count) else { return nil }
        return run.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// hms-time: three one- or two-digit fields separated by ":", then nothing or a non-digit.
    static func time(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var rest = token
        var fields: [Int] = []
        for index in 0..<3 {
            let run = rest.prefix { isDigit($0) }
            guard (1...2).contains(run.count) else { return nil }
            fields.append(run.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
            rest = rest.dropFirst(run.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    /// The month (1-12) whose name's first three letters start `token`, in any case.
    static func month(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        let names = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        return names.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, UTC)

    /// The number of days in `month` of `year`.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days from 1970-01-01 to the given date (H. Hinnant's days_from_civil).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
