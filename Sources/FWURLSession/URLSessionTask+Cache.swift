import Foundation
import FWTransport

// MARK: - The URL cache
//
// Each hop asks the cache what to do with its outgoing request (`CachePolicyDecision`, RFC 9111 as a pure
// function): serve the stored response without the network — queued as head, body and end, so a held
// delivery (suspend, a pending disposition) holds it too, and recorded as a `.localCache` transaction —,
// validate it with a conditional request, load from the network, or fail. A 304 to a validation refreshes
// the stored headers and is delivered as the stored response (status 200 and its body: the delegate never
// sees the 304); a 304 that matches nothing stored sends the request again without conditions. A response
// that may be stored keeps a copy of its body (up to the cache's capacity) and, once complete, is offered to
// the sink (`willCacheResponse` for a data delegate) and stored. An unsafe method's response invalidates
// what the cache holds for its URLs. The cache's disk is only read or written on the delegate queue or the
// caller's thread, never on an event loop.

/// The current hop's dealings with the cache.
struct TaskCacheState {
    /// The hop's request as it went out: the cache's key, and what `Vary` is judged against.
    var outgoing: URLRequest?
    /// The stored response the hop's conditional request validates.
    var validating: CachedURLResponse?
    /// The stored response a 304 refreshed: its body goes out at the end of the hop.
    var served: CachedURLResponse?
    /// Where the body to store is, while the response may be stored and fits the cache.
    var body = KeptBody.none
    /// When the response head arrived.
    var responseDate: Date?
}

/// Where the body of a response that may be stored is kept until the proposal is made.
enum KeptBody {
    /// Nowhere: the response is not stored (or outgrew the cache).
    case none
    /// In the sink, which collects it anyway (`ResponseSink.collectedBody`).
    case inSink
    /// A copy the task keeps, for a sink that does not collect the body (dropped past the cache's capacity).
    case copy(BodyCollector)
}

extension TaskCacheState {
    /// Lets go of every body the hop holds (the copy kept for storing, a refreshed stored response).
    mutating func dropBodies() {
        body = .none
        served = nil
        validating = nil
    }
}

extension URLSessionTask {
    // MARK: Before sending

    /// What the cache does with `outgoing`, the hop's request as it goes out.
    func cacheDecision(for outgoing: URLRequest) -> CachePolicyDecision {
        let configuration = session.sessionConfiguration
        let cache = configuration.urlCache
        return CachePolicyDecision.decide(request: outgoing, configurationPolicy: configuration.requestCachePolicy,
                                          now: Date()) { cache?.cachedResponse(for: outgoing) }
    }

    /// Serves `cached` without the network.
    func serveFromCache(_ cached: CachedURLResponse, for outgoing: URLRequest) {
        guard let response = cached.response as? HTTPURLResponse else {
            enqueue(.fail(URLError(.resourceUnavailable, url: outgoing.url,
                                   description: "the cached response is not HTTP")))
            return
        }
        transfer.withLock { state in
            guard let clock = state.metricsClock else { return }
            state.transactions.append(URLSessionTaskTransactionMetrics(
                request: outgoing, response: response, fetchStart: state.hopStart ?? state.fetchStart ?? Date(),
                transport: nil, clock: clock, decodedBodyBytes: Int64(cached.data.count), fetchType: .localCache))
        }
        enqueue(.cached(.response(response)))
        if !cached.data.isEmpty { enqueue(.cached(.body(cached.data))) }
        enqueue(.cached(.end))
    }

    // MARK: The response

    /// The hop's response head arrived. Invalidates what an unsafe method changed; a 304 to a validation
    /// becomes the stored response (or a request without conditions); a storable response starts keeping
    /// its body. True when the response was dealt with here (the caller delivers nothing).
    func cacheReceived(_ response: HTTPURLResponse) -> Bool {
        guard let cache = session.sessionConfiguration.urlCache,
              let (outgoing, validating) = transfer.withLock({ state in
                  state.cache.outgoing.map { ($0, state.cache.validating) }
              }) else { return false }
        for url in CacheInvalidation.invalidatedURLs(request: outgoing, response: response) {
            cache.removeCachedResponse(for: URLRequest(url: url))
        }
        let now = Date()
        if response.statusCode == 304, let validating {
            let requestDate = transfer.withLock { $0.hopStart } ?? now
            guard let refreshed = CacheValidation.refreshed(validating, by: response, requestDate: requestDate,
                                                            responseDate: now),
                  let stored = refreshed.response as? HTTPURLResponse else {
                let unconditional = transfer.withLock { $0.currentRequest } ?? outgoing
                transfer.withLock { $0.nextHop = NextHop(request: unconditional, reason: .unconditional) }
                return true
            }
            cache.storeCachedResponse(refreshed, for: outgoing)
            transfer.withLock { $0.cache.served = refreshed }
            deliverResponse(stored)
            return true
        }
        if CacheStorability.verdict(request: outgoing, response: response) == .storable {
            let kept = sink.collectsBody ? KeptBody.inSink : .copy(BodyCollector(
                .store(ceiling: Self.cacheLimit(cache)), limits: session.sessionConfiguration.httpResponseLimits,
                url: outgoing.url))
            transfer.withLock { state in
                state.cache.body = kept
                state.cache.responseDate = now
            }
        }
        return false
    }

    /// Keeps a copy of a body piece for storing, while it fits the cache (a sink that collects the body
    /// keeps it itself).
    func cacheBody(_ bytes: [UInt8]) {
        transfer.withLock { state in
            guard case .copy(var body) = state.cache.body else { return }
            state.cache.body = .none // the copy is uniquely referenced while it grows
            try? body.append(bytes) // a `store` collector never throws: past the cache's capacity it drops the body
            if !body.isDropped { state.cache.body = .copy(body) }
        }
    }

    /// The largest body worth keeping for `cache`.
    private static func cacheLimit(_ cache: URLCache) -> Int {
        max(cache.memoryCapacity, cache.diskCapacity)
    }

    // MARK: The end

    /// The hop ended successfully: a refreshed stored body goes out, a storable response is offered to the
    /// sink and stored, then the task completes.
    func finishCachedOrStored() {
        let served = transfer.withLock { state in
            defer { state.cache.served = nil }
            return state.cache.served
        }
        if let served, !served.data.isEmpty { deliverBody([UInt8](served.data)) }
        guard let cache = session.sessionConfiguration.urlCache, let (proposal, outgoing) = takeProposal(for: cache)
        else { return finish(error: nil) }
        offerForStoring(proposal, in: cache, for: outgoing)
    }

    /// Offers `proposal` to the sink (`willCacheResponse` for a data delegate) with delivery held, stores
    /// what it chooses for `request`, then completes the task.
    func offerForStoring(_ proposal: CachedURLResponse, in cache: URLCache, for request: URLRequest) {
        hold(.awaitingCacheDecision)
        sink.willCache(proposal, for: self) { chosen in
            self.session.delegateQueue.addOperation {
                if let chosen { cache.storeCachedResponse(chosen, for: request) }
                self.finish(error: nil)
                self.release(.awaitingCacheDecision)
            }
        }
    }

    /// What the hop proposes to store, and its request: its whole body was kept (by the task or the sink)
    /// and the response may be stored. The task's copy is let go of here.
    private func takeProposal(for cache: URLCache) -> (CachedURLResponse, URLRequest)? {
        let (kept, outgoing, response, requestDate, responseDate) = transfer.withLock { state in
            defer { state.cache.body = .none }
            return (state.cache.body, state.cache.outgoing, state.hopResponse, state.hopStart, state.cache.responseDate)
        }
        let body: Data
        switch kept {
        case .none: return nil
        case .copy(let copy):
            guard let kept = copy.collected else { return nil }
            body = kept
        case .inSink:
            guard let collected = sink.collectedBody, collected.count <= Self.cacheLimit(cache) else { return nil }
            body = collected
        }
        guard let outgoing, let response, let responseDate else { return nil }
        let proposal = CacheStorability.proposal(request: outgoing, response: response, data: body,
                                                 requestDate: requestDate ?? responseDate, responseDate: responseDate)
        return proposal.map { ($0, outgoing) }
    }
}
