// CacheFreshness.swift
//
// How fresh a stored response is (RFC 9111 §4.2), as a pure function of the response, the times of the
// exchange that produced it and "now". A response is fresh while its freshness lifetime exceeds its
// current age.
//
// Freshness lifetime (§4.2.1), first match wins; `s-maxage` is ignored (this is a private cache):
//   1. `max-age` (an invalid value counts as 0);
//   2. `Expires` minus `Date` (the response time when Date is absent or invalid); an invalid Expires, such
//      as "0", means already expired (§5.3);
//   3. heuristic (§4.2.2), only for a status that is heuristically cacheable (RFC 9110 §15.1) or a
//      response marked `public`: 10% of the time between Last-Modified and Date, at most one day;
//   4. otherwise 0.
//
// Current age (§4.2.3), with `age_value` the first member of the Age field (ignored when invalid, §5.1):
//   apparent_age          = max(0, response_time - date_value)
//   response_delay        = response_time - request_time
//   corrected_age_value   = age_value + response_delay
//   corrected_initial_age = max(apparent_age, corrected_age_value)
//   resident_time         = now - response_time
//   current_age           = corrected_initial_age + resident_time
// Differences of times that run backwards (a clock step) count as 0.

import Foundation

/// The freshness lifetime and current age of a stored response (RFC 9111 §4.2).
struct CacheFreshness: Equatable, Sendable {
    /// Where the freshness lifetime came from.
    enum LifetimeSource: Equatable, Sendable {
        /// The response's `max-age` directive.
        case maxAge
        /// `Expires` minus `Date`.
        case expires
        /// A fraction of the time since Last-Modified (§4.2.2).
        case heuristic
        /// Nothing: the lifetime is 0.
        case none
    }

    /// How long, in seconds, the response stays fresh after it was generated.
    let lifetime: TimeInterval
    /// Where `lifetime` came from.
    let lifetimeSource: LifetimeSource
    /// How old, in seconds, the response is now.
    let currentAge: TimeInterval

    /// Whether the response is fresh now.
    var isFresh: Bool {
        lifetime > currentAge
    }

    /// The fraction of the time since Last-Modified a heuristic lifetime is (§4.2.2's "typical setting").
    static let heuristicFraction = 0.1
    /// The longest heuristic lifetime: one day.
    static let heuristicLifetimeCap: TimeInterval = 86_400
    /// The status codes that are heuristically cacheable (RFC 9110 §15.1).
    static let heuristicallyCacheableStatusCodes: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410,
                                                               414, 501]

    // MARK: Computation

    /// The freshness of `response`, which was requested at `requestDate` and received at `responseDate`,
    /// at `now`.
    init(response: HTTPURLResponse, requestDate: Date, responseDate: Date, now: Date) {
        let (lifetime, source) = Self.lifetime(of: response, responseDate: responseDate)
        self.lifetime = lifetime
        self.lifetimeSource = source
        self.currentAge = Self.currentAge(of: response, requestDate: requestDate, responseDate: responseDate,
                                          now: now)
    }

    /// The freshness lifetime of `response` and where it came from (§4.2.1).
    static func lifetime(of response: HTTPURLResponse, responseDate: Date) -> (TimeInterval, LifetimeSource) {
        let directives = CacheControl(response: response)
        if let maxAge = directives.maxAge {
            return (TimeInterval(maxAge), .maxAge)
        }
        let date = response.dateFieldValue ?? responseDate
        if let expires = response.firstValue(forHTTPHeaderField: "Expires") {
            let expiry = HTTPDate.parse(expires) ?? .distantPast
            return (max(0, expiry.timeIntervalSince(date)), .expires)
        }
        let mayUseHeuristic = heuristicallyCacheableStatusCodes.contains(response.statusCode) || directives.isPublic
        if mayUseHeuristic, let lastModified = response.lastModifiedFieldValue, lastModified < date {
            let heuristic = date.timeIntervalSince(lastModified) * heuristicFraction
            return (min(heuristic, heuristicLifetimeCap), .heuristic)
        }
        return (0, .none)
    }

    /// The current age of `response` at `now` (§4.2.3).
    static func currentAge(of response: HTTPURLResponse, requestDate: Date, responseDate: Date,
                           now: Date) -> TimeInterval {
        let dateValue = response.dateFieldValue ?? responseDate
        let apparentAge = max(0, responseDate.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseDate.timeIntervalSince(requestDate))
        let correctedAgeValue = TimeInterval(ageValue(of: response)) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(responseDate))
        return correctedInitialAge + residentTime
    }

    /// The Age field's first member in seconds; 0 when absent or invalid (§5.1).
    static func ageValue(of response: HTTPURLResponse) -> Int {
        guard let field = response.value(forHTTPHeaderField: "Age") else { return 0 }
        let first = field.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
        return CacheControl.deltaSeconds(first.trimmingHTTPWhitespace()) ?? 0
    }
}
