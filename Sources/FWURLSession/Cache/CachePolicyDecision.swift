// CachePolicyDecision.swift
//
// What a request does with the cache, as one pure function of the request, its cache policy, the response
// the cache holds for it (if any) and "now". The outcome: use the stored response without the network;
// validate it with a conditional request; load from the network; or fail. The stored response is passed as
// a lookup closure that is only called when the outcome depends on it, so the cache (and its disk) is not
// read for a request that cannot use it.
//
// The effective policy is the request's, unless that is `.useProtocolCachePolicy`, in which case the
// session configuration's `requestCachePolicy` applies. A stored response is a candidate only for a GET and
// only when its Vary matches the request (CacheVary.swift). Per policy:
//
//   .reloadIgnoringLocalCacheData            load
//   .reloadIgnoringLocalAndRemoteCacheData   load, the request asking intermediaries to validate too
//                                            (`Cache-Control: no-cache`, `Pragma: no-cache`)
//   .returnCacheDataElseLoad                 candidate: use it whatever its age; none: load
//   .returnCacheDataDontLoad                 candidate: use it whatever its age; none: fail
//   .reloadRevalidatingCacheData             candidate with a validator: validate; else: load
//   .useProtocolCachePolicy                  RFC 9111, below
//
// RFC 9111 (§4), with the request's directives (CacheControl.swift):
//   - a request with its own conditions or a Range goes to the network untouched (the caller validates);
//   - request `no-store`: the cache is bypassed (neither used here nor written after), as browsers and
//     okhttp do; the RFC only requires not storing;
//   - no candidate: load, or fail for `only-if-cached`;
//   - request `no-cache`, response `no-cache`: validate;
//   - usable when age + min-fresh < lifetime + max-stale, where lifetime is capped by the request's
//     `max-age` and max-stale is 0 for a response that says `must-revalidate` (§4.2, §5.2);
//   - otherwise: validate, or fail for `only-if-cached`.
// "Validate" becomes "load" when the stored response has no validator (CacheValidation.swift). Failures
// are `URLError.resourceUnavailable`, FoundationNetworking's code for "not in the cache and may not load".

import Foundation

/// What a request does with the cache (see the table above).
enum CachePolicyDecision: Equatable, Sendable {
    /// Deliver this stored response (with its body) without the network.
    case useStored(CachedURLResponse)
    /// Send `request`, which carries conditions validating the stored response; a 304 refreshes it.
    case validate(CachedURLResponse, request: URLRequest)
    /// Send `request` to the network; the cache offers nothing.
    case load(URLRequest)
    /// Fail the task with this error.
    case fail(URLError)

    // MARK: Decision

    /// The decision for `request` under `configurationPolicy` (the session's `requestCachePolicy`) at `now`;
    /// `lookup` reads the response the cache holds for the request, and is called only when the decision
    /// needs it (never for the reload policies, a method other than GET, a request with its own conditions
    /// or `no-store`), so that no disk read is wasted.
    static func decide(request: URLRequest, configurationPolicy: URLRequest.CachePolicy, now: Date,
                       lookup: () -> CachedURLResponse?) -> CachePolicyDecision {
        func candidate() -> CachedURLResponse? {
            guard request.httpMethod == "GET", let cached = lookup(), isCandidate(cached, for: request) else {
                return nil
            }
            return cached
        }
        switch effectivePolicy(request: request, configurationPolicy: configurationPolicy) {
        case .reloadIgnoringLocalCacheData:
            return .load(request)
        case .reloadIgnoringLocalAndRemoteCacheData:
            return .load(requestingRevalidationFromIntermediaries(request))
        case .returnCacheDataElseLoad:
            return candidate().map(CachePolicyDecision.useStored) ?? .load(request)
        case .returnCacheDataDontLoad:
            return candidate().map(CachePolicyDecision.useStored) ?? .fail(notCached(request))
        case .reloadRevalidatingCacheData:
            return candidate().map { validateOrLoad($0, request: request) } ?? .load(request)
        case .useProtocolCachePolicy:
            return protocolDecision(request: request, now: now, candidate: candidate)
        }
    }

    /// The decision when the session has no cache: nothing is stored, so `decide`'s outcome with no candidate,
    /// found without reading the request's conditions (the small-request path pays for one field lookup at
    /// most: `only-if-cached` can only come in `Cache-Control`).
    static func decideWithoutCache(request: URLRequest, configurationPolicy: URLRequest.CachePolicy,
                                   now: Date) -> CachePolicyDecision {
        switch effectivePolicy(request: request, configurationPolicy: configurationPolicy) {
        case .reloadIgnoringLocalAndRemoteCacheData:
            return .load(requestingRevalidationFromIntermediaries(request))
        case .returnCacheDataDontLoad:
            return .fail(notCached(request))
        case .useProtocolCachePolicy where request.value(forHTTPHeaderField: "Cache-Control") != nil:
            return decide(request: request, configurationPolicy: configurationPolicy, now: now) { nil }
        default:
            return .load(request)
        }
    }

    /// The request's policy, or the configuration's when the request leaves it to the protocol.
    static func effectivePolicy(request: URLRequest,
                                configurationPolicy: URLRequest.CachePolicy) -> URLRequest.CachePolicy {
        request.cachePolicy == .useProtocolCachePolicy ? configurationPolicy : request.cachePolicy
    }

    /// Whether `cached` may answer `request` (a GET): its Vary fields match.
    static func isCandidate(_ cached: CachedURLResponse, for request: URLRequest) -> Bool {
        guard let response = cached.response as? HTTPURLResponse else { return true }
        return CacheVary.matches(request, response: response, storedFields: cached.cacheInfo?.varyingFields)
    }

    // MARK: RFC 9111

    /// The decision of `.useProtocolCachePolicy`.
    private static func protocolDecision(request: URLRequest, now: Date,
                                         candidate lookup: () -> CachedURLResponse?) -> CachePolicyDecision {
        let directives = CacheControl(request: request)
        if hasOwnConditions(request) || directives.noStore {
            return .load(request)
        }
        guard let candidate = lookup(), let stored = candidate.response as? HTTPURLResponse else {
            return directives.onlyIfCached ? .fail(notCached(request)) : .load(request)
        }
        let storedDirectives = CacheControl(response: stored)
        if directives.noCache || storedDirectives.noCache {
            return directives.onlyIfCached ? .fail(notCached(request)) : validateOrLoad(candidate, request: request)
        }
        let responseDate = candidate.cacheInfo?.responseDate ?? stored.dateFieldValue ?? now
        let freshness = CacheFreshness(response: stored, requestDate: candidate.cacheInfo?.requestDate ?? responseDate,
                                       responseDate: responseDate, now: now)
        let lifetime = min(freshness.lifetime, directives.maxAge.map(TimeInterval.init) ?? .infinity)
        let minFresh = TimeInterval(directives.minFresh ?? 0)
        let maxStale = storedDirectives.mustRevalidate ? 0 : directives.maxStale.map(seconds) ?? 0
        if freshness.currentAge + minFresh < lifetime + maxStale {
            return .useStored(candidate)
        }
        return directives.onlyIfCached ? .fail(notCached(request)) : validateOrLoad(candidate, request: request)
    }

    /// `max-stale` seconds, with `Int.max` (no value) as unlimited.
    private static func seconds(_ maxStale: Int) -> TimeInterval {
        maxStale == Int.max ? .infinity : TimeInterval(maxStale)
    }

    /// Whether the caller made `request` conditional or partial itself.
    static func hasOwnConditions(_ request: URLRequest) -> Bool {
        ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]
            .contains { request.value(forHTTPHeaderField: $0) != nil }
    }

    // MARK: Outcomes

    /// Validate `candidate` when it has a validator, else load.
    private static func validateOrLoad(_ candidate: CachedURLResponse, request: URLRequest) -> CachePolicyDecision {
        guard let stored = candidate.response as? HTTPURLResponse,
              let conditional = CacheValidation.conditionalRequest(request, validating: stored) else {
            return .load(request)
        }
        return .validate(candidate, request: conditional)
    }

    /// `request` asking caches on the way to validate (`Cache-Control: no-cache`, and `Pragma: no-cache`
    /// for HTTP/1.0 caches), unless it sets those fields itself.
    static func requestingRevalidationFromIntermediaries(_ request: URLRequest) -> URLRequest {
        var revalidating = request
        for name in ["Cache-Control", "Pragma"] where request.value(forHTTPHeaderField: name) == nil {
            revalidating.setValue("no-cache", forHTTPHeaderField: name)
        }
        return revalidating
    }

    /// The error for a request the cache cannot answer and that may not load.
    private static func notCached(_ request: URLRequest) -> URLError {
        URLError(.resourceUnavailable, url: request.url,
                 description: "the resource is not in the cache and the cache policy does not allow loading it")
    }
}
