import Foundation
import FWTransport

// MARK: - The URL cache: what the task does for `CacheHopPolicy`
//
// What the cache decides is `CacheHopPolicy`'s (`Task/Policies/CacheHopPolicy.swift`); the task executes it
// here. A stored response served without the network is queued as head, body and end, so a held delivery
// (suspend, a pending disposition) holds it too, and recorded as a `.localCache` transaction. A response that
// may be stored keeps a copy of its body as it arrives (up to the cache's capacity; a sink that collects the
// body keeps it itself). When the hop ends, the body of a 304's refreshed stored response goes out, then the
// end walk proposes what may be stored (`willCacheResponse`, `URLSessionTask+HopPolicies.swift`) before the
// task completes.

extension URLSessionTask {
    /// Serves `cached` without the network, for the hop's outgoing request.
    func serveFromCache(_ cached: CachedURLResponse, for outgoing: URLRequest?) {
        if let outgoing, let response = cached.response as? HTTPURLResponse {
            withTransfer { state in
                guard let fetchStart = state.hop.sentAt ?? state.fetchStart else { return }
                state.transactions.append(TransactionRecord(
                    request: outgoing, response: response, fetchStart: fetchStart,
                    decodedBodyBytes: Int64(cached.data.count), fetchType: .localCache))
            }
        }
        enqueue(.cached(.response(cached.response)))
        if !cached.data.isEmpty { enqueue(.cached(.body(cached.data))) }
        enqueue(.cached(.end))
    }

    /// Keeps a copy of a body piece for storing, while it fits the cache (a sink that collects the body
    /// keeps it itself).
    func cacheBody(_ bytes: [UInt8]) {
        withTransfer { state in
            guard case .copy(var body) = state.hop.storing else { return }
            state.hop.storing = .none // the copy is uniquely referenced while it grows
            try? body.append(bytes) // a `store` collector never throws: past the cache's capacity it drops the body
            if !body.isDropped { state.hop.storing = .copy(body) }
        }
    }

    /// The hop ended successfully: a refreshed stored body goes out, then the end walk (a storable response is
    /// offered to the sink and stored), then the task completes. A hop that keeps no body skips the walk: only
    /// the cache has an end step.
    func finishCachedOrStored() {
        let (served, keepsBody) = withTransfer { state -> (CachedURLResponse?, Bool) in
            defer { state.hop.served = nil }
            if case .none = state.hop.storing { return (state.hop.served, false) }
            return (state.hop.served, true)
        }
        if let served, !served.data.isEmpty { deliverBody([UInt8](served.data)) }
        guard keepsBody else { return finish(error: nil) }
        let context = hopContext
        let outcome = walkPolicies { hop, _ in
            HopPolicies.end(&hop, collectedBody: { sink.collectedBody(of: self) }, context)
        }
        execute(outcome, stage: .ended)
    }
}
