// HTTPCookie+HeaderFields.swift
//
// Cookies to and from header-field dictionaries, the way FoundationNetworking's class methods do it.
// A dictionary holds one value per name, so several Set-Cookie fields arrive joined with ", " (as
// `HTTPURLResponse.allHeaderFields` joins them): the joined value is split again at each comma that is
// followed by `token =` (a comma inside an Expires date is followed by a day number, not by "name=").
// The session itself reads each Set-Cookie field separately (`cookies(fromSetCookieFields:...)`).

import Foundation

// MARK: - Header fields

extension HTTPCookie {
    /// The Cookie field value for `cookies`: "name=value" pairs joined by "; "; nil for no cookies.
    static func cookieFieldValue(_ cookies: [HTTPCookie]) -> String? {
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.fields.name)=\($0.fields.value)" }.joined(separator: "; ")
    }

    /// The Set-Cookie values in a header-field dictionary: every field named Set-Cookie in any case,
    /// each split where several fields were joined with commas.
    static func setCookieFields(in headerFields: [String: String]) -> [String] {
        headerFields.filter { $0.key.lowercased() == "set-cookie" }.sorted { $0.key < $1.key }
            .flatMap { splitJoinedFields($0.value) }
    }

    /// Splits a value that joins several Set-Cookie fields with commas: at each comma followed by
    /// optional whitespace, a token and optional whitespace, then "=".
    static func splitJoinedFields(_ value: String) -> [String] {
        let bytes = Array(value.utf8)
        var fields: [String] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: ",") && startsCookie(bytes, at: index + 1) {
            fields.append(String(decoding: bytes[start..<index], as: UTF8.self))
            start = index + 1
        }
        fields.append(String(decoding: bytes[start...], as: UTF8.self))
        return fields.map { SetCookie.trim(Substring($0)) }.filter { !$0.isEmpty }
    }

    /// True when `bytes` from `index` read: whitespace, one or more token characters, whitespace, "=".
    private static func startsCookie(_ bytes: [UInt8], at index: Int) -> Bool {
        var position = index
        func skipWhitespace() {
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
        }
        skipWhitespace()
        let tokenStart = position
        while position < bytes.count, isTokenCharacter(bytes[position]) { position += 1 }
        guard position > tokenStart else { return false }
        skipWhitespace()
        return position < bytes.count && bytes[position] == UInt8(ascii: "=")
    }

    /// RFC 9110's tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "a")...UInt8(ascii: "z"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
