import Foundation

// MARK: - Policy 3: the URL cache
//
// Before a hop goes to the network the cache decides what to do with its outgoing request
// (`CachePolicyDecision`, RFC 9111 as a pure function): serve the stored response without the network,
// validate it with a conditional request (`Hop.transmitted`), load from the network (possibly asking
// intermediaries to revalidate), or fail. A hop sent again without conditions skips it.
//
// When the response head arrives, an unsafe method's response invalidates what the cache holds for its URLs
// (observe). A 304 to a validation refreshes the stored headers and the stored response is served in its place
// (status 200 and its body: the delegate never sees the 304); a 304 that matches nothing stored replaces the
// hop with the request without conditions. A response that may be stored keeps its body (`Hop.storing`: the
// sink's collected body, or a copy the task keeps up to the cache's capacity). When the hop ends, what may be
// stored is proposed (`willCacheResponse` through the sink) and the answer is stored.
//
// The cache's disk is only read or written on the delegate queue or the caller's thread, never on a loop.

/// Policy 3: the URL cache serves, validates, invalidates and stores.
enum CacheHopPolicy {
    // MARK: Before sending

    /// What the cache does with the hop's outgoing request.
    static func prepare(_ hop: inout Hop, _ context: HopContext) -> HopDecision {
        guard hop.reason != .unconditional, let outgoing = hop.outgoing else { return .continue }
        let configuration = context.configuration
        let cache = configuration.urlCache
        let decision = if let cache {
            CachePolicyDecision.decide(request: outgoing, configurationPolicy: configuration.requestCachePolicy,
                                       now: context.now) { cache.cachedResponse(for: outgoing) }
        } else {
            CachePolicyDecision.decideWithoutCache(request: outgoing,
                                                   configurationPolicy: configuration.requestCachePolicy,
                                                   now: context.now)
        }
        switch decision {
        case .useStored(let cached):
            guard cached.response is HTTPURLResponse else {
                return .fail(URLError(.resourceUnavailable, url: outgoing.url,
                                      description: "the cached response is not HTTP"))
            }
            hop.source = .cache(cached)
            return .serve(cached)
        case .fail(let error):
            return .fail(error)
        case .validate(let cached, let conditional):
            hop.validating = cached
            hop.transmitted = conditional
            return .continue
        case .load(let request):
            hop.transmitted = request
            return .continue
        }
    }

    // MARK: The response

    /// Invalidates what an unsafe method's response changed.
    static func observe(_ hop: Hop, _ response: HTTPURLResponse, _ configuration: URLSessionConfiguration) {
        guard let cache = configuration.urlCache, let outgoing = hop.outgoing else { return }
        for url in CacheInvalidation.invalidatedURLs(request: outgoing, response: response) {
            cache.removeCachedResponse(for: URLRequest(url: url))
        }
    }

    /// A 304 to a validation serves the refreshed stored response (or replaces the hop with the request
    /// without conditions); a storable response starts keeping its body.
    static func decide(_ hop: inout Hop, _ response: HTTPURLResponse, _ context: HopContext) -> HopDecision {
        guard let cache = context.configuration.urlCache, let outgoing = hop.outgoing else { return .continue }
        let now = context.now
        if response.statusCode == 304, let validating = hop.validating {
            guard let refreshed = CacheValidation.refreshed(validating, by: response, requestDate: hop.sentAt ?? now,
                                                            responseDate: now),
                  refreshed.response is HTTPURLResponse else {
                return .replace(NextHop(request: hop.request ?? outgoing, reason: .unconditional))
            }
            cache.storeCachedResponse(refreshed, for: outgoing)
            hop.served = refreshed
            return .serve(refreshed)
        }
        if CacheStorability.verdict(request: outgoing, response: response) == .storable {
            hop.storing = context.sinkCollectsBody ? .inSink : .copy(BodyCollector(
                .store(ceiling: storingLimit(cache)), limits: context.configuration.httpResponseLimits,
                url: outgoing.url))
            hop.respondedAt = now
        }
        return .continue
    }

    // MARK: The end

    /// The hop ended: what it may store is proposed (its whole body was kept, by the task or the sink:
    /// `collectedBody`). The task's copy is let go of here.
    static func ended(_ hop: inout Hop, collectedBody: () -> Data?,
                      _ configuration: URLSessionConfiguration) -> HopDecision {
        guard let cache = configuration.urlCache else { return .continue }
        let kept = hop.storing
        hop.storing = .none
        let body: Data
        switch kept {
        case .none: return .continue
        case .copy(let copy):
            guard let kept = copy.collected else { return .continue }
            body = kept
        case .inSink:
            guard let collected = collectedBody(), collected.count <= storingLimit(cache) else { return .continue }
            body = collected
        }
        guard let outgoing = hop.outgoing, let response = hop.response, let responseDate = hop.respondedAt,
              let proposal = CacheStorability.proposal(request: outgoing, response: response, data: body,
                                                       requestDate: hop.sentAt ?? responseDate,
                                                       responseDate: responseDate) else { return .continue }
        return .ask(.willCache(proposal, request: outgoing))
    }

    /// Stores what the sink chose of the proposal.
    static func resolve(_ chosen: CachedURLResponse?, request: URLRequest,
                        _ configuration: URLSessionConfiguration) -> HopDecision {
        if let chosen { configuration.urlCache?.storeCachedResponse(chosen, for: request) }
        return .continue
    }

    /// The largest body worth keeping for `cache`.
    static func storingLimit(_ cache: URLCache) -> Int {
        max(cache.memoryCapacity, cache.diskCapacity)
    }
}
