// HTTPCookiePropertyKey.swift
//
// The keys of a cookie's properties dictionary (`HTTPCookie.init?(properties:)`, `HTTPCookie.properties`),
// the SameSite policy strings, and the storage's accept policies, with FoundationNetworking's names and
// raw values ("Name", "Value", ..., "SameSite"; "lax", "strict").

import Foundation

// MARK: - HTTPCookiePropertyKey

/// A key of a cookie's properties dictionary.
public struct HTTPCookiePropertyKey: RawRepresentable, Equatable, Hashable, Sendable {
    /// The key's string, such as "Name".
    public private(set) var rawValue: String

    /// A key with the given string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A key with the given string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}

extension HTTPCookiePropertyKey {
    /// The cookie's name (a String; required).
    public static let name = HTTPCookiePropertyKey(rawValue: "Name")
    /// The cookie's value (a String; required).
    public static let value = HTTPCookiePropertyKey(rawValue: "Value")
    /// The URL that set the cookie (a URL or String): its host is the domain when `.domain` is absent.
    public static let originURL = HTTPCookiePropertyKey(rawValue: "OriginURL")
    /// The cookie's version ("0" or "1"; 0 by default).
    public static let version = HTTPCookiePropertyKey(rawValue: "Version")
    /// The cookie's domain (a String); a leading dot makes it a domain cookie, otherwise it is host-only.
    public static let domain = HTTPCookiePropertyKey(rawValue: "Domain")
    /// The cookie's path (a String; required).
    public static let path = HTTPCookiePropertyKey(rawValue: "Path")
    /// Whether the cookie is sent over secure connections only (any non-empty String, or a Bool).
    public static let secure = HTTPCookiePropertyKey(rawValue: "Secure")
    /// When the cookie expires (a Date, or a String in a cookie-date format).
    public static let expires = HTTPCookiePropertyKey(rawValue: "Expires")
    /// A comment for the user (a String; version 1 cookies).
    public static let comment = HTTPCookiePropertyKey(rawValue: "Comment")
    /// A URL with a comment for the user (a URL or String; version 1 cookies).
    public static let commentURL = HTTPCookiePropertyKey(rawValue: "CommentURL")
    /// Whether the cookie is discarded at the end of the session ("TRUE" or "FALSE", or a Bool).
    public static let discard = HTTPCookiePropertyKey(rawValue: "Discard")
    /// How many seconds the cookie lives (a String or Int; version 1 cookies).
    public static let maximumAge = HTTPCookiePropertyKey(rawValue: "Max-Age")
    /// The ports the cookie is sent to (a comma-separated String, or an array of numbers).
    public static let port = HTTPCookiePropertyKey(rawValue: "Port")
    /// The cookie's SameSite policy (an `HTTPCookieStringPolicy` or its String).
    public static let sameSitePolicy = HTTPCookiePropertyKey(rawValue: "SameSite")

    /// Whether scripts may not read the cookie ("TRUE", or a Bool); not public in Foundation either.
    static let httpOnly = HTTPCookiePropertyKey(rawValue: "HttpOnly")
    /// When the cookie was created (seconds since the reference date, or a Date), as Cocoa stores it.
    static let created = HTTPCookiePropertyKey(rawValue: "Created")
}

// MARK: - HTTPCookieStringPolicy

/// A cookie's SameSite policy.
///
/// FoundationNetworking names Lax and Strict; `sameSiteNone` is an FWNetworking addition for an explicit
/// `SameSite=None` (a cookie without the attribute has a nil policy).
public struct HTTPCookieStringPolicy: RawRepresentable, Equatable, Hashable, Sendable {
    /// The policy's string: "lax", "strict" or "none".
    public private(set) var rawValue: String

    /// A policy with the given string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A policy with the given string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Sent with same-site requests and top-level cross-site navigations.
    public static let sameSiteLax = HTTPCookieStringPolicy(rawValue: "lax")
    /// Sent with same-site requests only.
    public static let sameSiteStrict = HTTPCookieStringPolicy(rawValue: "strict")
    /// FWNetworking addition: sent with every request (an explicit `SameSite=None`).
    public static let sameSiteNone = HTTPCookieStringPolicy(rawValue: "none")

    /// The policy a SameSite attribute value names (case-insensitively), or nil for anything else.
    init?(attributeValue: String) {
        switch attributeValue.lowercased() {
        case "lax": self = .sameSiteLax
        case "strict": self = .sameSiteStrict
        case "none": self = .sameSiteNone
        default: return nil
        }
    }
}

// MARK: - HTTPCookie.AcceptPolicy

extension HTTPCookie {
    /// Which cookies a storage accepts.
    public enum AcceptPolicy: UInt, Sendable {
        /// Every cookie.
        case always = 0
        /// No cookie.
        case never = 1
        /// Only cookies from the main document's site (its registrable domain).
        case onlyFromMainDocumentDomain = 2
    }
}
