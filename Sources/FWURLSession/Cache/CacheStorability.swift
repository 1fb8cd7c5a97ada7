// CacheStorability.swift
//
// Whether a private cache may store a response (RFC 9111 §3), as a pure function of the request and the
// response. The rules, checked in this order, each with its verdict:
//
//   1. the method is GET (the only method whose responses this cache stores)         .methodNotCacheable
//   2. the status is final, and neither 206 (partial content is not stored) nor 304  .statusNotStorable
//   3. neither the request nor the response has `no-store`                           .noStore
//   4. a request with Authorization: the response says `public`, `must-revalidate`
//      or `s-maxage` (§3.5)                                                          .authorizationNotAllowed
//   5. the response's Vary is not `*` (it could never be used)                       .variesOnEverything
//   6. the response has explicit freshness (`max-age`, Expires), is marked `public` or
//      `private` (this cache is private), or has a heuristically cacheable status    .noFreshnessInformation
//
// `no-cache` does not prevent storing: the response is stored and validated before every use.
// `must-understand` is not implemented, which the RFC allows: such responses carry `no-store` for caches
// that do not understand it, and rule 3 honours that.
//
// What is stored is the response without the fields that describe one connection rather than the
// response (§3.1; RFC 9110 §7.6.1): Connection and the fields it names, Keep-Alive, Proxy-Connection, TE,
// Transfer-Encoding and Upgrade, nor the proxy's own Proxy-Authenticate, Proxy-Authentication-Info and
// Proxy-Authorization. The body is stored as delivered (content coding already undone).

import Foundation

/// Whether and how a response may be stored (RFC 9111 §3).
enum CacheStorability {
    /// Why a response may or may not be stored.
    enum Verdict: Equatable, Sendable {
        /// It may be stored.
        case storable
        /// The request method is not GET.
        case methodNotCacheable
        /// The status is interim, 206 or 304.
        case statusNotStorable
        /// The request or the response says `no-store`.
        case noStore
        /// The request carried Authorization and the response does not allow storing it anyway.
        case authorizationNotAllowed
        /// The response varies on `*`.
        case variesOnEverything
        /// Nothing says how long the response stays fresh, and it may not be given a heuristic lifetime.
        case noFreshnessInformation
    }

    // MARK: Verdict

    /// Whether the response to `request` may be stored, and if not, why (rules 1 to 6 above).
    static func verdict(request: URLRequest, response: HTTPURLResponse) -> Verdict {
        let directives = CacheControl(response: response)
        if request.httpMethod != "GET" {
            return .methodNotCacheable
        }
        if response.statusCode < 200 || response.statusCode == 206 || response.statusCode == 304 {
            return .statusNotStorable
        }
        if directives.noStore || CacheControl(request: request).noStore {
            return .noStore
        }
        if request.value(forHTTPHeaderField: "Authorization") != nil,
           !(directives.isPublic || directives.mustRevalidate || directives.hasSharedMaxAge) {
            return .authorizationNotAllowed
        }
        if CacheVary.fieldNames(of: response) == nil {
            return .variesOnEverything
        }
        let isExplicit = directives.maxAge != nil || response.firstValue(forHTTPHeaderField: "Expires") != nil
        let isMarked = directives.isPublic || directives.isPrivate
        let isHeuristic = CacheFreshness.heuristicallyCacheableStatusCodes.contains(response.statusCode)
        return isExplicit || isMarked || isHeuristic ? .storable : .noFreshnessInformation
    }

    // MARK: Proposal

    /// What the session proposes to store (and offers to `willCacheResponse`) for the complete response
    /// `response` with body `data` to `request`, sent at `requestDate` and received at `responseDate`; nil
    /// when the response may not be stored.
    static func proposal(request: URLRequest, response: HTTPURLResponse, data: Data, requestDate: Date,
                         responseDate: Date) -> CachedURLResponse? {
        guard verdict(request: request, response: response) == .storable, let url = response.url else { return nil }
        let fields = storedFields(of: response.orderedHeaderFields)
        let stored = fields.count == response.orderedHeaderFields.count
            ? response
            : HTTPURLResponse(url: url, statusCode: response.statusCode,
                              httpVersion: response.httpVersion ?? "HTTP/1.1", orderedHeaderFields: fields)
        let info = CacheEntryInfo(requestDate: requestDate, responseDate: responseDate, storedDate: nil,
                                  varyingFields: nil)
        return CachedURLResponse(response: stored, data: data, userInfo: nil, storagePolicy: .allowed, cacheInfo: info)
    }

    // MARK: Fields

    /// The fields that describe a connection or a proxy rather than the response (§3.1), lower-cased.
    static let connectionFieldNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// `fields` without the connection and proxy fields, nor the fields the Connection field names.
    static func storedFields(of fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let excluded = connectionFieldNames.union(connectionOptions(in: fields))
        return fields.filter { !excluded.contains($0.name.lowercased()) }
    }

    /// The field names the Connection fields of `fields` list, lower-cased.
    static func connectionOptions(in fields: [(name: String, value: String)]) -> Set<String> {
        var names: Set<String> = []
        for field in fields where field.name.isEqualIgnoringASCIICase("Connection") {
            for member in CacheControl.members(of: field.value) {
                names.insert(member.name.lowercased())
            }
        }
        return names
    }
}
