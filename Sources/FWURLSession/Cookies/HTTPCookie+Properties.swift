// HTTPCookie+Properties.swift
//
// A cookie to and from its properties dictionary, by FoundationNetworking's rules:
// - `.name`, `.value` and `.path` are required Strings; the domain is `.domain` (lower-cased) or else the
//   host of `.originURL` (a URL or String). Anything else missing or mistyped gives nil.
// - `.secure` makes the cookie secure when it is any non-empty String (as in Foundation, "FALSE" too) or a
//   true Bool; `.discard` and `HttpOnly` when they are "TRUE" or a true Bool.
// - `.version` is 1 when it is "1" (or 1), otherwise 0. `.port` is a comma-separated String or an array
//   of numbers; a version 0 cookie keeps the first port only.
// - `.maximumAge` (seconds from `now`) wins over `.expires` for version 1 cookies; for version 0 it only
//   hides `.expires`, as in Foundation. `.expires` is a Date or a String in any cookie-date format.
// - The cookie is session-only when `.discard` says so, when it is a version 1 cookie without
//   `.maximumAge`, or when it has no expiry date (Foundation on Apple platforms: no expiry date means
//   session-only).
// The dictionary a cookie gives back passes through `init?(properties:)` to an equal cookie.

import Foundation

// MARK: - Reading a properties dictionary

extension HTTPCookie.Fields {
    /// The fields a properties dictionary describes, with `now` as the creation date (unless `.created`
    /// gives one) and the start of `.maximumAge`; nil when the dictionary does not describe a cookie.
    init?(properties: [HTTPCookiePropertyKey: Any], now: Date) {
        let value = PropertyValue.self
        guard let name = value.string(properties[.name]), let cookieValue = value.string(properties[.value]),
              let path = value.string(properties[.path]),
              let domain = value.string(properties[.domain]) ?? value.url(properties[.originURL])?.host
        else { return nil }
        let version = value.integer(properties[.version]) == 1 ? 1 : 0
        let maximumAge = value.integer(properties[.maximumAge])
        let expiresDate: Date?
        if let maximumAge {
            expiresDate = version == 1 ? now.addingTimeInterval(TimeInterval(maximumAge)) : nil
        } else {
            expiresDate = value.date(properties[.expires])
        }
        let discard = value.flag(properties[.discard]) ?? (maximumAge == nil && version >= 1)
        var ports = value.ports(properties[.port])
        if version == 0, let first = ports?.first { ports = [first] }
        self.init(
            name: name, value: cookieValue, domain: domain.lowercased(), path: path, expiresDate: expiresDate,
            isSessionOnly: discard || expiresDate == nil,
            isSecure: value.secureFlag(properties[.secure]), isHTTPOnly: value.flag(properties[.httpOnly]) ?? false,
            comment: value.string(properties[.comment]), commentURL: value.url(properties[.commentURL]),
            portList: ports, version: version,
            sameSitePolicy: value.sameSite(properties[.sameSitePolicy]),
            creationDate: value.date(properties[.created]) ?? now,
            originURL: value.url(properties[.originURL])
        )
    }

    // MARK: Writing a properties dictionary

    /// The cookie as a properties dictionary that `init?(properties:)` reads back to an equal cookie.
    var properties: [HTTPCookiePropertyKey: Any] {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .domain: domain, .path: path, .secure: isSecure,
            .discard: isSessionOnly, .version: version,
            .created: creationDate.timeIntervalSinceReferenceDate,
        ]
        properties[.expires] = expiresDate
        properties[.comment] = comment
        properties[.commentURL] = commentURL
        properties[.originURL] = originURL
        properties[.port] = portList?.map { NSNumber(value: $0) }
        properties[.sameSitePolicy] = sameSitePolicy?.rawValue
        if isHTTPOnly { properties[.httpOnly] = "TRUE" }
        return properties
    }
}

// MARK: - PropertyValue

/// Reads the value types a properties dictionary may hold.
private enum PropertyValue {
    static func string(_ value: Any?) -> String? {
        switch value {
        case let string as String: string
        case let substring as Substring: String(substring)
        default: nil
        }
    }

    static func integer(_ value: Any?) -> Int? {
        switch value {
        case let integer as Int: integer
        case let number as NSNumber: number.intValue
        case let string as String: Int(string.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// "TRUE" (in any case) or a Bool; nil when absent or of another type.
    static func flag(_ value: Any?) -> Bool? {
        switch value {
        case let bool as Bool: bool
        case let number as NSNumber: number.boolValue
        case let string as String: string.uppercased() == "TRUE"
        default: nil
        }
    }

    /// Foundation's rule for `.secure`: any non-empty String, or a true Bool.
    static func secureFlag(_ value: Any?) -> Bool {
        switch value {
        case let bool as Bool: bool
        case let number as NSNumber: number.boolValue
        case let string as String: !string.isEmpty
        default: false
        }
    }

    static func url(_ value: Any?) -> URL? {
        switch value {
        case let url as URL: url
        case let string as String: URL(string: string)
        default: nil
        }
    }

    /// A Date, a cookie-date String, or seconds since the reference date (how `.created` is stored).
    static func date(_ value: Any?) -> Date? {
        switch value {
        case let date as Date: date
        case let seconds as Double: Date(timeIntervalSinceReferenceDate: seconds)
        case let number as NSNumber: Date(timeIntervalSinceReferenceDate: number.doubleValue)
        case let string as String: CookieDate.parse(string)
        default: nil
        }
    }

    /// An `HTTPCookieStringPolicy` or its String, in any case; nil for an unknown policy.
    static func sameSite(_ value: Any?) -> HTTPCookieStringPolicy? {
        switch value {
        case let policy as HTTPCookieStringPolicy: HTTPCookieStringPolicy(attributeValue: policy.rawValue)
        case let string as String: HTTPCookieStringPolicy(attributeValue: string)
        default: nil
        }
    }

    /// A comma-separated String or an array of numbers; nil when absent or empty.
    static func ports(_ value: Any?) -> [Int]? {
        let ports: [Int]
        switch value {
        case let string as String:
            ports = string.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        case let numbers as [NSNumber]: ports = numbers.map(\.intValue)
        case let integers as [Int]: ports = integers
        default: return nil
        }
        return ports.isEmpty ? nil : ports
    }
}
