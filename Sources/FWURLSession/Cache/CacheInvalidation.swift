// CacheInvalidation.swift
//
// Invalidation by unsafe requests (RFC 9111 §4.4): when a request with a method other than GET, HEAD,
// OPTIONS or TRACE gets a non-error response (a 2xx or 3xx status), the responses stored for its target URI
// are invalid, and so are those for the URIs in the response's Location and Content-Location fields when
// they have the same origin (scheme, host and port) as the target: a cache must not let a third party's
// response invalidate another origin's entries. Relative references are resolved against the target URI.

import Foundation

/// Which stored responses an unsafe request invalidates (RFC 9111 §4.4).
enum CacheInvalidation {
    /// The methods that never invalidate (RFC 9110 §9.2.1).
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The URLs whose stored responses are invalid after `request` got `response`; empty for a safe method
    /// or an error status.
    static func invalidatedURLs(request: URLRequest, response: HTTPURLResponse) -> [URL] {
        guard let target = request.url, let method = request.httpMethod, !safeMethods.contains(method),
              (200..<400).contains(response.statusCode) else { return [] }
        var urls = [target]
        for name in ["Location", "Content-Location"] {
            guard let value = response.firstValue(forHTTPHeaderField: name),
                  let url = URL(string: value, relativeTo: target)?.absoluteURL,
                  isSameOrigin(url, target), !urls.contains(url) else { continue }
            urls.append(url)
        }
        return urls
    }

    /// Whether `url` and `other` have the same scheme, host and port (a missing port is the scheme's).
    static func isSameOrigin(_ url: URL, _ other: URL) -> Bool {
        RedirectPolicy.isSameOrigin(url, other)
    }
}
