import Foundation
import FWTransport

// MARK: - Redirects, and hops replaced by another request
//
// A 3xx with a usable Location is offered to the delegate (`willPerformHTTPRedirection`), with delivery
// held until it answers. Following it marks the hop as replaced (`NextHop`): its remaining events are
// dropped, and when the hop ends the next request is sent on the same task (a new metrics transaction).
// Refusing delivers the 3xx as the task's response. A 401 answered with a credential, and a 304 that does
// not match the stored response, replace their hop the same way.

extension URLSessionTask {
    /// Offers `response` as a redirect; false when it is not one (the caller delivers it).
    func considerRedirect(_ response: HTTPURLResponse, from request: URLRequest) -> Bool {
        guard let next = RedirectPolicy.nextRequest(after: response, from: request), let url = request.url else {
            return false
        }
        let redirects = transfer.withLock { $0.redirectCount }
        guard redirects < RedirectPolicy.maxRedirects else {
            abort(with: URLError(.httpTooManyRedirects, url: url,
                                 description: "more than \(RedirectPolicy.maxRedirects) redirects"))
            return true
        }
        hold(.awaitingRedirectDecision)
        let asked = DelegateRouter.willPerformHTTPRedirection(task: self, response: response, newRequest: next) {
            chosen in
            // The delegate may answer on any thread, later: decide on the delegate queue.
            self.session.delegateQueue.addOperation { self.decideRedirect(chosen, response: response) }
        }
        if !asked { decideRedirect(next, response: response) }
        return true
    }

    /// Follow `chosen`, or (nil) deliver the 3xx itself as the response; then let delivery go on.
    private func decideRedirect(_ chosen: URLRequest?, response: HTTPURLResponse) {
        if let chosen {
            transfer.withLock { $0.nextHop = NextHop(request: chosen, reason: .redirect) }
        } else {
            deliverResponse(response)
        }
        release(.awaitingRedirectDecision)
    }

    /// The replaced hop ended: send the next request. A hop that was cancelled or timed out ends the task
    /// instead; one that merely lost the rest of its body is replaced. A redirect that turned the method
    /// into GET drops the upload body.
    func endReplacedHop(_ event: TransportEvent) {
        if case .failed(let error) = event, error.isCancelled || error.isTimedOut || error.isShutDown {
            finish(error: URLError(error, url: currentRequest?.url))
            return
        }
        let next = transfer.withLock { state -> NextHop? in
            guard let hop = state.nextHop else { return nil }
            if (hop.request.httpMethod ?? "GET") != (state.currentRequest?.httpMethod ?? "GET") { state.upload = nil }
            if hop.reason == .redirect { state.redirectCount += 1 }
            state.nextHop = nil
            state.currentRequest = hop.request
            state.hopResponse = nil
            state.cache = TaskCacheState()
            return hop
        }
        if let next { send(next.request, bypassingCache: next.reason == .unconditional) }
    }
}
