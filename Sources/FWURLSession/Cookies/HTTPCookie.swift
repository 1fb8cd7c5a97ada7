// HTTPCookie.swift
//
// An HTTP cookie, source-compatible with FoundationNetworking's `HTTPCookie`. Instances are immutable.
// A cookie comes from a properties dictionary (`HTTPCookie+Properties.swift`, Foundation's rules) or from
// a Set-Cookie field (`HTTPCookie+SetCookie.swift`, RFC 6265 §5.2-5.3). The domain follows Foundation's
// convention: a leading dot marks a domain cookie (sent to the domain and its subdomains), no dot a
// host-only cookie. Matching a request (RFC 6265 §5.4) is in `HTTPCookie+Matching.swift`.

import Foundation

// MARK: - HTTPCookie

/// An HTTP cookie: a name and value with the domain, path and lifetime that decide where it is sent.
///
/// `@unchecked Sendable`: the only stored property is a `let` of Sendable values.
open class HTTPCookie: NSObject, @unchecked Sendable { // lets only
    /// Everything a cookie is.
    struct Fields: Sendable, Equatable {
        var name: String
        var value: String
        /// Lower-cased; a leading dot for a domain cookie.
        var domain: String
        var path: String
        var expiresDate: Date?
        var isSessionOnly: Bool
        var isSecure = false
        var isHTTPOnly = false
        var comment: String?
        var commentURL: URL?
        var portList: [Int]?
        var version = 0
        var sameSitePolicy: HTTPCookieStringPolicy?
        /// When the cookie was first stored (RFC 6265's creation-time; kept when it is replaced).
        var creationDate: Date
        var originURL: URL?
    }

    /// The cookie.
    let fields: Fields

    /// A cookie with the given fields.
    init(fields: Fields) {
        self.fields = fields
        super.init()
    }

    /// A cookie from a properties dictionary, by Foundation's rules: `.name`, `.value` and `.path` are
    /// required, and `.domain` or `.originURL`; nil when one is missing or has the wrong type. See
    /// `HTTPCookiePropertyKey` for each key's values.
    public init?(properties: [HTTPCookiePropertyKey: Any]) {
        guard let fields = Fields(properties: properties, now: Date()) else { return nil }
        self.fields = fields
        super.init()
    }

    // MARK: Header fields

    /// The header fields that send `cookies` with a request: ["Cookie": "a=1; b=2"], or an empty
    /// dictionary for no cookies. The order is kept: pass cookies in RFC 6265's order (as
    /// `HTTPCookieStorage.cookies(for:)` returns them).
    open class func requestHeaderFields(with cookies: [HTTPCookie]) -> [String: String] {
        cookieFieldValue(cookies).map { ["Cookie": $0] } ?? [:]
    }

    /// The cookies that the Set-Cookie fields among `headerFields` set for a response from `URL`,
    /// parsed and checked by RFC 6265's rules; other fields are ignored. Several Set-Cookie fields joined
    /// with commas (as `allHeaderFields` joins them) are split again.
    open class func cookies(withResponseHeaderFields headerFields: [String: String], for URL: URL) -> [HTTPCookie] {
        cookies(fromSetCookieFields: setCookieFields(in: headerFields), for: URL, now: Date())
    }

    // MARK: Properties

    /// The cookie as a properties dictionary; `init?(properties:)` makes an equal cookie from it.
    open var properties: [HTTPCookiePropertyKey: Any]? { fields.properties }

    /// The cookie's version: 0 for Netscape and RFC 6265 cookies, 1 for RFC 2965 cookies.
    open var version: Int { fields.version }

    /// The cookie's name.
    open var name: String { fields.name }

    /// The cookie's value.
    open var value: String { fields.value }

    /// When the cookie expires; nil for a session-only cookie.
    open var expiresDate: Date? { fields.expiresDate }

    /// Whether the cookie is discarded at the end of the session (it is never written to disk).
    open var isSessionOnly: Bool { fields.isSessionOnly }

    /// The domain the cookie is sent to: with a leading dot, that domain and its subdomains; without,
    /// that host only.
    open var domain: String { fields.domain }

    /// The path the cookie is sent to, with the paths below it.
    open var path: String { fields.path }

    /// Whether the cookie is sent over secure connections (https, wss) only.
    open var isSecure: Bool { fields.isSecure }

    /// Whether the cookie is for HTTP only (scripts may not read it); it is still sent with requests.
    open var isHTTPOnly: Bool { fields.isHTTPOnly }

    /// The cookie's comment (RFC 2965), if any.
    open var comment: String? { fields.comment }

    /// The cookie's comment URL (RFC 2965), if any.
    open var commentURL: URL? { fields.commentURL }

    /// The only ports the cookie is sent to (RFC 2965); nil when it is sent to any port.
    open var portList: [NSNumber]? { fields.portList?.map { NSNumber(value: $0) } }

    /// The cookie's SameSite policy; nil when the cookie did not name one.
    open var sameSitePolicy: HTTPCookieStringPolicy? { fields.sameSitePolicy }

    // MARK: Internal views

    /// When the cookie was first stored.
    var creationDate: Date { fields.creationDate }

    /// True for a host-only cookie (its domain has no leading dot).
    var isHostOnly: Bool { !fields.domain.hasPrefix(".") }

    /// The domain without the leading dot of a domain cookie.
    var bareDomain: String { isHostOnly ? fields.domain : String(fields.domain.dropFirst()) }

    /// True when the cookie has expired at `now`.
    func isExpired(at now: Date) -> Bool {
        guard let expiresDate = fields.expiresDate else { return false }
        return expiresDate <= now
    }

    /// The same cookie with another creation date (a replaced cookie keeps the old one's).
    func withCreationDate(_ date: Date) -> HTTPCookie {
        var changed = fields
        changed.creationDate = date
        return HTTPCookie(fields: changed)
    }

    // MARK: Equality, description

    /// Equal when every property but the creation date and origin URL is equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HTTPCookie else { return false }
        var mine = fields
        mine.creationDate = other.fields.creationDate
        mine.originURL = other.fields.originURL
        return mine == other.fields
    }

    /// Hashes the name, domain and path.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(fields.name)
        hasher.combine(fields.domain)
        hasher.combine(fields.path)
        return hasher.finalize()
    }

    /// Every property in one line, in FoundationNetworking's order.
    open override var description: String {
        let expires = fields.expiresDate.map { "\($0)" } ?? "nil"
        let ports = fields.portList.map { $0.map(String.init).joined(separator: ",") } ?? "0"
        return "<\(type(of: self)) version:\(fields.version) name:\"\(fields.name)\" value:\"\(fields.value)\" "
            + "expiresDate:\(expires) sessionOnly:\(fields.isSessionOnly) domain:\"\(fields.domain)\" "
            + "path:\"\(fields.path)\" isSecure:\(fields.isSecure) isHTTPOnly:\(fields.isHTTPOnly) "
            + "sameSitePolicy:\(fields.sameSitePolicy?.rawValue ?? "nil") comment:\(fields.comment ?? "nil") "
            + "ports:{ \(ports) }>"
    }
}
