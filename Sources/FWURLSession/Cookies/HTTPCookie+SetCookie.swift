// HTTPCookie+SetCookie.swift
//
// RFC 6265 §5.3 steps 2-9: the cookie a parsed Set-Cookie field (`SetCookie`) makes for the response to a
// request URL, or nothing when the user agent must ignore it.
// - Expiry: Max-Age wins over Expires whatever their order (a Max-Age <= 0 expires the cookie at once,
//   which deletes a stored one); without either the cookie is session-only. Discard (RFC 2965) also
//   makes it session-only.
// - Domain: a public suffix is refused, unless it is the request host itself (then the cookie is
//   host-only); the request host must domain-match the attribute, and an IP address only matches itself
//   (so its cookies are host-only). A domain cookie's domain gets Foundation's leading dot. Without the
//   attribute the cookie is host-only for the request host.
// - Path: the attribute, or the request URL's default path.
// - Secure: a secure cookie from an insecure scheme (http, ws) is refused (RFC 6265bis §5.7).
// - Prefixes (RFC 6265bis §4.1.3, names compared without case): "__Secure-" requires Secure; "__Host-"
//   requires Secure, a host-only cookie and an explicit `Path=/`.
// Steps 10-12 (replacing a stored cookie, keeping its creation time) are the storage's (`CookieJar`).

import Foundation

// MARK: - From Set-Cookie fields

extension HTTPCookie {
    /// The cookies that Set-Cookie field values (one cookie each) received from `url` at `now` make;
    /// fields a user agent ignores are left out.
    static func cookies(fromSetCookieFields fields: [String], for url: URL, now: Date,
                        publicSuffixes: PublicSuffixList = .system) -> [HTTPCookie] {
        fields.compactMap { field in
            SetCookie(field).flatMap { cookie(from: $0, for: url, now: now, publicSuffixes: publicSuffixes) }
        }
    }

    /// The cookie `setCookie` makes for a response to `url` at `now`, or nil when it must be ignored.
    static func cookie(from setCookie: SetCookie, for url: URL, now: Date,
                       publicSuffixes: PublicSuffixList) -> HTTPCookie? {
        guard let host = canonicalHost(of: url),
              let domain = cookieDomain(setCookie.domain, host: host, publicSuffixes: publicSuffixes)
        else { return nil }
        let secureScheme = isSecureScheme(url)
        guard !setCookie.isSecure || secureScheme else { return nil }
        let path = setCookie.path ?? defaultPath(of: url)
        guard prefixRulesAllow(setCookie, hostOnly: !domain.hasPrefix(".")) else { return nil }
        let expiresDate = expiry(of: setCookie, now: now)
        var ports = setCookie.ports
        if ports?.isEmpty == true { ports = nil }
        return HTTPCookie(fields: Fields(
            name: setCookie.name, value: setCookie.value, domain: domain, path: path, expiresDate: expiresDate,
            isSessionOnly: expiresDate == nil || setCookie.discard, isSecure: setCookie.isSecure,
            isHTTPOnly: setCookie.isHTTPOnly, comment: setCookie.comment, commentURL: setCookie.commentURL,
            portList: ports, version: setCookie.version, sameSitePolicy: setCookie.sameSite,
            creationDate: now, originURL: url
        ))
    }

    // MARK: Steps

    /// §5.3 step 3: Max-Age (from `now`) over Expires; nil for a session cookie.
    static func expiry(of setCookie: SetCookie, now: Date) -> Date? {
        guard let maxAge = setCookie.maxAge else { return setCookie.expires }
        guard maxAge > 0 else { return .distantPast }
        return min(now.addingTimeInterval(TimeInterval(maxAge)), .distantFuture)
    }

    /// §5.3 steps 4-6: the cookie's domain in Foundation's form (leading dot for a domain cookie, none for
    /// a host-only one), or nil when the Domain attribute makes the cookie ignored.
    static func cookieDomain(_ attribute: String?, host: String, publicSuffixes: PublicSuffixList) -> String? {
        guard let attribute = attribute.map(Punycode.asciiDomain) else { return host }
        if publicSuffixes.isPublicSuffix(attribute) {
            return attribute == host ? host : nil
        }
        guard domainMatches(host, attribute) else { return nil }
        return isIPAddress(host) ? host : "." + attribute
    }

    /// RFC 6265bis §4.1.3: the "__Secure-" and "__Host-" name prefixes' requirements.
    static func prefixRulesAllow(_ setCookie: SetCookie, hostOnly: Bool) -> Bool {
        let name = setCookie.name.lowercased()
        if name.hasPrefix("__secure-") { return setCookie.isSecure }
        if name.hasPrefix("__host-") { return setCookie.isSecure && hostOnly && setCookie.path == "/" }
        return true
    }
}
