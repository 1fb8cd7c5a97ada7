// HTTPAuthenticationChallenge+ProtectionSpace.swift
//
// What a challenge means to URLSession: the authentication method constant of its scheme, the
// protection space it implies (the origin's host, port and scheme, or the proxy's host, port and type,
// with the challenge's realm), and which of several challenges to answer: the first Digest challenge
// this client can answer (RFC 7616 §3.7: servers list their preferred challenge first), else the first
// Basic one. Pure functions.

import Foundation

// MARK: - Protection spaces

extension HTTPAuthenticationChallenge {
    /// The NSURLAuthenticationMethod constant for the scheme, nil for a scheme URLSession has none for.
    var authenticationMethod: String? {
        switch scheme.lowercased() {
        case "basic": NSURLAuthenticationMethodHTTPBasic
        case "digest": NSURLAuthenticationMethodHTTPDigest
        case "ntlm": NSURLAuthenticationMethodNTLM
        case "negotiate": NSURLAuthenticationMethodNegotiate
        default: nil
        }
    }

    /// The protection space of this challenge from the origin server of `url` (a 401 response): host,
    /// port (the scheme's default when absent), scheme as protocol, realm and method; nil when `url` has
    /// no host or the scheme has no method.
    func protectionSpace(forServerOf url: URL) -> URLProtectionSpace? {
        guard let host = url.host, let method = authenticationMethod else { return nil }
        let scheme = url.scheme?.lowercased()
        return URLProtectionSpace(host: host, port: url.port ?? HTTPCookie.port(of: url), protocol: scheme,
                                  realm: realm, authenticationMethod: method)
    }

    /// The protection space of this challenge from a proxy (a 407 response): its host and port, the proxy
    /// type (such as `NSURLProtectionSpaceHTTPProxy`), realm and method; nil when the scheme has no method.
    func protectionSpace(forProxyHost host: String, port: Int, type: String) -> URLProtectionSpace? {
        guard let method = authenticationMethod else { return nil }
        return URLProtectionSpace(proxyHost: host, port: port, type: type, realm: realm, authenticationMethod: method)
    }

    // MARK: Choosing

    /// The challenge to answer among `challenges`: the first Digest challenge that can be answered (a
    /// supported algorithm; qop absent or offering "auth"), else the first Basic challenge; nil when none.
    static func preferred(among challenges: [HTTPAuthenticationChallenge]) -> HTTPAuthenticationChallenge? {
        challenges.first { HTTPDigestChallenge($0) != nil } ?? challenges.first { $0.hasScheme("Basic") }
    }
}
