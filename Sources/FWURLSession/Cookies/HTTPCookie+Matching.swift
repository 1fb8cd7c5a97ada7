// HTTPCookie+Matching.swift
//
// The matching rules of RFC 6265: canonical hosts (lower-cased; IP addresses are never domain-matched),
// domain matching (§5.1.3), the default path (§5.1.4), path matching (§5.1.4), and which stored cookies a
// request carries and in which order (§5.4): the domain matches (host-only cookies: the same host), the
// path matches, secure cookies only over https or wss, expired cookies never, an RFC 2965 port list must
// name the port; longer paths first, then earlier creation. Pure functions.

import Foundation
import FWTransport

// MARK: - Rules

extension HTTPCookie {
    /// The lower-cased host of `url`, nil when it has none.
    static func canonicalHost(of url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        return host.lowercased()
    }

    /// True when `host` is an IPv4 or IPv6 address (with or without brackets).
    static func isIPAddress(_ host: String) -> Bool {
        var bytes = [UInt8](repeating: 0, count: 16)
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        return inet_pton(AF_INET, bare, &bytes) == 1 || inet_pton(AF_INET6, bare, &bytes) == 1
    }

    /// RFC 6265 §5.1.3: `host` is `domain`, or ends with "." + `domain` and is not an IP address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !isIPAddress(host))
    }

    /// True for the schemes RFC 6265 calls secure: https and wss.
    static func isSecureScheme(_ url: URL) -> Bool {
        ["https", "wss"].contains(url.scheme?.lowercased() ?? "")
    }

    /// The path of `url` as sent (percent-encoded), "/" when empty.
    static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// RFC 6265 §5.1.4's default-path: the request path up to (not including) its last "/", or "/" when
    /// the path is empty, does not start with "/", or has no other "/".
    static func defaultPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// RFC 6265 §5.1.4: the paths are equal, or `cookiePath` is a prefix of `requestPath` that ends with
    /// "/" or is followed by "/" there.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/")
            || requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// The port of `url`, or its scheme's default (`ConnectionKey`'s rule) for the HTTP and WebSocket
    /// schemes; 0 for another scheme without a port.
    static func port(of url: URL) -> Int {
        if let port = url.port { return port }
        guard let scheme = url.scheme?.lowercased(), ["http", "https", "ws", "wss"].contains(scheme) else { return 0 }
        return ConnectionKey.defaultPort(forScheme: scheme)
    }

    // MARK: Matching a request

    /// RFC 6265 §5.4 step 1: whether a request to `url` at `now` carries this cookie.
    func isSent(to url: URL, now: Date) -> Bool {
        guard let host = Self.canonicalHost(of: url), !isExpired(at: now) else { return false }
        let domainMatches = isHostOnly ? host == fields.domain : Self.domainMatches(host, bareDomain)
        guard domainMatches, Self.pathMatches(Self.requestPath(of: url), fields.path) else { return false }
        guard !fields.isSecure || Self.isSecureScheme(url) else { return false }
        guard let ports = fields.portList else { return true }
        return ports.contains(Self.port(of: url))
    }

    /// RFC 6265 §5.4 step 2: longer paths first, then earlier creation (`sequence` breaks ties between
    /// cookies created at the same instant, in the order they were stored).
    static func requestOrder(_ lhs: (cookie: HTTPCookie, sequence: UInt64),
                             _ rhs: (cookie: HTTPCookie, sequence: UInt64)) -> Bool {
        let (left, right) = (lhs.cookie.fields, rhs.cookie.fields)
        if left.path.utf8.count != right.path.utf8.count { return left.path.utf8.count > right.path.utf8.count }
        if left.creationDate != right.creationDate { return left.creationDate < right.creationDate }
        return lhs.sequence < rhs.sequence
    }
}
