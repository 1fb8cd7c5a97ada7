// SetCookie.swift
//
// One Set-Cookie field value parsed as RFC 6265 §5.2 says a user agent parses it, leniently:
// - The name-value pair is everything before the first ";"; without "=" the field is ignored. Name and
//   value are trimmed of spaces and tabs; an empty name ignores the field. Quotes stay in the value.
// - A field with a control character (other than HTAB), or whose name and value are together longer than
//   4096 bytes, is ignored (RFC 6265bis §5.6 and §6.1 limits).
// - Attributes are split at ";", their name and value at the first "=", both trimmed; names compare
//   without case; an attribute value longer than 1024 bytes ignores the attribute (RFC 6265bis). The last
//   valid occurrence of an attribute wins. Unknown attributes are ignored.
// - Expires: a cookie-date (§5.1.1), else ignored. Max-Age: an optional "-" and digits, else ignored
//   (the expiry it gives is computed when the cookie is stored, from "now"). Domain: an empty value is
//   ignored; a leading dot is dropped; lower-cased. Path: a value not starting with "/" means the default
//   path. Secure, HttpOnly: flags. SameSite: Strict, Lax or None in any case, else ignored.
// - FoundationNetworking's RFC 2965 attributes are kept too: Comment, CommentURL, Discard, Port, Version.
// What the cookie becomes for a given request URL (domain and path rules) is `HTTPCookie+SetCookie.swift`.
// A pure value type.

import Foundation

// MARK: - SetCookie

/// A parsed Set-Cookie field value, before it is bound to the URL that sent it.
struct SetCookie: Equatable, Sendable {
    /// The longest name plus value accepted, in bytes.
    static let maximumNameValueBytes = 4096
    /// The longest attribute value accepted, in bytes.
    static let maximumAttributeValueBytes = 1024

    var name: String
    var value: String
    /// The last valid Expires attribute.
    var expires: Date?
    /// The last valid Max-Age attribute, in seconds (clamped to Int64).
    var maxAge: Int64?
    /// The last non-empty Domain attribute, without a leading dot, lower-cased.
    var domain: String?
    /// The last Path attribute that starts with "/"; nil means the default path (a later invalid Path
    /// resets an earlier valid one, as RFC 6265 appends the default path for it).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: HTTPCookieStringPolicy?
    var comment: String?
    var commentURL: URL?
    var discard = false
    var ports: [Int]?
    var version = 0

    /// Parses one Set-Cookie field value; nil when a user agent ignores it.
    init?(_ field: String) {
        guard !field.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
        let parts = field.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        name = Self.trim(pair[..<equals])
        value = Self.trim(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumNameValueBytes else { return nil }
        for attribute in parts.dropFirst() {
            let (attributeName, attributeValue) = Self.split(attribute)
            guard attributeValue.utf8.count <= Self.maximumAttributeValueBytes else { continue }
            apply(name: attributeName.lowercased(), value: attributeValue)
        }
    }

    // MARK: Attributes

    /// Records one attribute (name already lower-cased).
    private mutating func apply(name: String, value: String) {
        switch name {
        case "expires": if let date = CookieDate.parse(value) { expires = date }
        case "max-age": if let seconds = Self.maxAge(value) { maxAge = seconds }
        case "domain":
            guard !value.isEmpty else { return }
            domain = (value.hasPrefix(".") ? String(value.dropFirst()) : value).lowercased()
        case "path": path = value.hasPrefix("/") ? value : nil
        case "secure": isSecure = true
        case "httponly": isHTTPOnly = true
        case "samesite": if let policy = HTTPCookieStringPolicy(attributeValue: value) { sameSite = policy }
        case "comment": comment = value
        case "commenturl": commentURL = URL(string: value)
        case "discard": discard = true
        case "port":
            let list = value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            ports = list.split(separator: ",").compactMap { Int(Self.trim($0)) }
        case "version": version = Int(value) == 1 ? 1 : 0
        default: break
        }
    }

    /// RFC 6265 §5.2.2: "-"? DIGIT+, clamped to Int64; nil for anything else.
    static func maxAge(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        let negative = bytes.first == UInt8(ascii: "-")
        let digits = negative ? bytes.dropFirst() : bytes[...]
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var magnitude: Int64 = 0
        for digit in digits {
            let (times, overflowTimes) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(digit - 0x30))
            guard !overflowTimes, !overflowSum else { return negative ? .min : .max }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    // MARK: Helpers

    /// Name and value of an attribute: split at the first "=", both trimmed (the value empty without "=").
    private static func split(_ attribute: Substring) -> (String, String) {
        guard let equals = attribute.firstIndex(of: "=") else { return (trim(attribute), "") }
        return (trim(attribute[..<equals]), trim(attribute[attribute.index(after: equals)...]))
    }

    /// `text` without leading and trailing spaces and tabs (RFC 6265's WSP).
    static func trim(_ text: Substring) -> String {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isWhitespace($0) }),
              let last = text.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(text[first...last])
    }
}
