import Foundation

// MARK: - Policy 1: URL protocols
//
// Every hop (the first request, and each after a redirect or an answered challenge) is first offered to the
// session's URL protocol classes; the class that takes the task (`URLSession.protocolClass(for:)`, chosen by
// the task and given in `HopContext.protocolClass`) canonicalises the request, which becomes the hop's request,
// and the hop's source becomes its load: the rest of the prepare walk is skipped (no cookies, no URL cache, no
// transport). A hop sent again without conditions (`Hop.Reason.unconditional`) is not offered. The load's
// events, its redirect and its challenges are the task's to execute (`URLSessionTask+Protocol.swift`); its
// redirect goes through `RedirectHopPolicy`.

/// Policy 1: a URL protocol takes the hop.
enum ProtocolHopPolicy {
    /// Makes the hop a URL protocol's load when `context.protocolClass` takes it.
    static func prepare(_ hop: inout Hop, _ context: HopContext) -> HopDecision {
        guard hop.reason != .unconditional, let protocolClass = context.protocolClass,
              let request = hop.request else { return .continue }
        let canonical = protocolClass.canonicalRequest(for: request)
        hop.request = canonical
        hop.source = .urlProtocol(ProtocolLoad(request: canonical))
        return .continue
    }

    /// The URL cache's response a protocol instance for `request` is made with, unless the request's cache
    /// policy ignores local data.
    static func cachedResponse(for request: URLRequest, _ configuration: URLSessionConfiguration)
        -> CachedURLResponse? {
        let policy = request.cachePolicy == .useProtocolCachePolicy ? configuration.requestCachePolicy
            : request.cachePolicy
        guard policy != .reloadIgnoringLocalCacheData, policy != .reloadIgnoringLocalAndRemoteCacheData else {
            return nil
        }
        return configuration.urlCache?.cachedResponse(for: request)
    }
}
