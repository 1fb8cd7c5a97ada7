// CacheValidation.swift
//
// Validating a stored response with the origin (RFC 9111 §4.3), as pure functions.
//
// The conditional request (§4.3.1) carries every validator the stored response has: `If-None-Match` with
// its ETag and `If-Modified-Since` with its Last-Modified value, verbatim (the most interoperable choice,
// RFC 9110 §13.1.3). A response without either cannot be validated; it is loaded again.
//
// A 304 answer (§4.3.3) refreshes the stored response when it selects it (§4.3.4): a 304 with a strong
// ETag selects a stored response with the same strong ETag; with a weak ETag, one whose ETag is the same
// under weak comparison; without an ETag, the stored response the request validated (this cache keeps one
// response per URL, and the 304 answers the conditions made from it). A 304 that selects nothing leaves the
// cache alone; the request must then be sent again without conditions.
//
// Refreshing (§3.2): every field of the 304 replaces the stored fields of that name, except the fields
// that are never stored (CacheStorability.connectionFieldNames and those Connection names), Content-Length
// (the 304 has no body to measure), and Content-Encoding (the body is stored decoded; §3.2 lets a cache
// keep the fields its processing of the body depends on). The stored status and body stay: the client
// sees the stored response, normally a 200, never the 304. The exchange times become the 304's, so the
// response's age starts again from the validation.

import Foundation

/// Conditional requests and 304 handling (RFC 9111 §4.3).
enum CacheValidation {
    // MARK: Conditional request

    /// `request` with the conditions that validate `stored`; nil when `stored` has no validator.
    static func conditionalRequest(_ request: URLRequest, validating stored: HTTPURLResponse) -> URLRequest? {
        let entityTag = stored.firstValue(forHTTPHeaderField: "ETag")
        let lastModified = stored.firstValue(forHTTPHeaderField: "Last-Modified")
        guard entityTag != nil || lastModified != nil else { return nil }
        var conditional = request
        if let entityTag {
            conditional.setValue(entityTag, forHTTPHeaderField: "If-None-Match")
        }
        if let lastModified {
            conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        return conditional
    }

    // MARK: 304

    /// Whether the 304 `notModified` selects `stored` — the one response its conditional request validated —
    /// for an update (§4.3.4): no validator, or the same entity tag by the weak comparison (RFC 9110
    /// §8.8.3.2). Weak, not strong, because the stored tag was only ever compared with this one: servers that
    /// weaken a tag when they compress the body (nginx) answer the validation with the strong tag of the
    /// same representation.
    static func selects(_ notModified: HTTPURLResponse, stored: HTTPURLResponse) -> Bool {
        guard let newTag = notModified.firstValue(forHTTPHeaderField: "ETag").flatMap(EntityTag.init) else {
            return true
        }
        guard let storedTag = stored.firstValue(forHTTPHeaderField: "ETag").flatMap(EntityTag.init) else {
            return false
        }
        return newTag.opaqueTag == storedTag.opaqueTag
    }

    /// `cached` refreshed by the 304 `notModified` of an exchange sent at `requestDate` and received at
    /// `responseDate`; nil when the 304 does not select it (or it is not an HTTP response).
    static func refreshed(_ cached: CachedURLResponse, by notModified: HTTPURLResponse, requestDate: Date,
                          responseDate: Date) -> CachedURLResponse? {
        guard let stored = cached.response as? HTTPURLResponse, let url = stored.url,
              selects(notModified, stored: stored) else { return nil }
        let response = HTTPURLResponse(
            url: url,
            statusCode: stored.statusCode,
            httpVersion: stored.httpVersion ?? "HTTP/1.1",
            orderedHeaderFields: mergedFields(stored: stored.orderedHeaderFields,
                                              update: notModified.orderedHeaderFields)
        )
        let info = CacheEntryInfo(requestDate: requestDate, responseDate: responseDate, storedDate: nil,
                                  varyingFields: nil)
        return CachedURLResponse(response: response, data: cached.data, userInfo: cached.userInfo,
                                 storagePolicy: cached.storagePolicy, cacheInfo: info)
    }

    /// The fields of `stored` with those `update` brings replaced (§3.2); replaced fields go after the others.
    static func mergedFields(stored: [(name: String, value: String)],
                             update: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let kept = CacheStorability.connectionFieldNames
            .union(CacheStorability.connectionOptions(in: update))
            .union(["content-length", "content-encoding"])
        let updates = update.filter { !kept.contains($0.name.lowercased()) }
        let replaced = Set(updates.map { $0.name.lowercased() })
        return stored.filter { !replaced.contains($0.name.lowercased()) } + updates
    }
}

// MARK: - EntityTag

/// An entity tag (RFC 9110 §8.8.3): `"opaque"` or `W/"opaque"`.
struct EntityTag: Equatable, Sendable {
    /// Whether the tag is weak (`W/` prefix).
    let isWeak: Bool
    /// The quoted part, quotes included.
    let opaqueTag: String

    /// The entity tag in `field`; nil when it is not one (no quotes).
    init?(_ field: String) {
        let trimmed = field.trimmingHTTPWhitespace()
        isWeak = trimmed.hasPrefix("W/")
        opaqueTag = isWeak ? String(trimmed.dropFirst(2)) : trimmed
        guard opaqueTag.count >= 2, opaqueTag.hasPrefix("\""), opaqueTag.hasSuffix("\"") else { return nil }
    }
}
