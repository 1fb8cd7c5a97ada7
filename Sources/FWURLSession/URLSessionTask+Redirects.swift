import Foundation
import FWTransport

// MARK: - Redirects, and hops replaced by another request
//
// A 3xx with a usable Location is offered to the delegate (`willPerformHTTPRedirection`), with delivery
// held until it answers. Following it marks the hop as replaced (`NextHop`): its remaining events are
// dropped, and when the hop ends the next request is sent on the same task (a new metrics transaction).
// Refusing delivers the 3xx as the task's response. A 401 answered with a credential, and a 304 that does
// not match the stored response, replace their hop the same way. A URL protocol's redirect goes through the
// same offer (`offerRedirect`); its hop has no transport events to wait for, so the next request goes out
// at once (`URLSessionTask+Protocol.swift`).

extension URLSessionTask {
    /// Offers `response` as a redirect; false when it is not one (the caller delivers it).
    func considerRedirect(_ response: HTTPURLResponse, from request: URLRequest) -> Bool {
        guard let next = RedirectPolicy.nextRequest(after: response, from: request) else { return false }
        offerRedirect(next, response: response) { chosen in
            if let chosen {
                self.transfer.withLock { $0.nextHop = NextHop(request: chosen, reason: .redirect) }
            } else {
                self.deliverResponse(response)
            }
        }
        return true
    }

    /// Offers the redirect to `next` that `response` asks for: past `RedirectPolicy.maxRedirects` the task
    /// fails with `httpTooManyRedirects`; otherwise delivery is held while the delegate decides (without
    /// one, `next` is followed), `decide` gets the request to follow (nil: none) on the delegate queue, and
    /// delivery goes on after it.
    func offerRedirect(_ next: URLRequest, response: HTTPURLResponse,
                       decide: @escaping @Sendable (URLRequest?) -> Void) {
        let redirects = transfer.withLock { $0.redirectCount }
        guard redirects < RedirectPolicy.maxRedirects else {
            abort(with: URLError(.httpTooManyRedirects, url: response.url ?? next.url,
                                 description: "more than \(RedirectPolicy.maxRedirects) redirects"))
            return
        }
        hold(.awaitingRedirectDecision)
        let asked = DelegateRouter.willPerformHTTPRedirection(task: self, response: response, newRequest: next) {
            chosen in
            // The delegate may answer on any thread, later: decide on the delegate queue.
            self.session.delegateQueue.addOperation {
                decide(chosen)
                self.release(.awaitingRedirectDecision)
            }
        }
        if !asked {
            decide(next)
            release(.awaitingRedirectDecision)
        }
    }

    /// The replaced hop ended: send the next request. A hop that was cancelled or timed out ends the task
    /// instead; one that merely lost the rest of its body is replaced.
    func endReplacedHop(_ event: TransportEvent) {
        if case .failed(let error) = event, error.isCancelled || error.isTimedOut || error.isShutDown {
            finish(error: URLError(error, url: currentRequest?.url))
            return
        }
        sendNextHop()
    }

    /// Sends the request that replaces the current hop (`nextHop`). A redirect that turned the method into
    /// GET drops the upload body.
    func sendNextHop() {
        let next = transfer.withLock { state -> NextHop? in
            guard let hop = state.nextHop else { return nil }
            if (hop.request.httpMethod ?? "GET") != (state.currentRequest?.httpMethod ?? "GET") { state.upload = nil }
            if hop.reason == .redirect { state.redirectCount += 1 }
            state.nextHop = nil
            state.currentRequest = hop.request
            state.hopResponse = nil
            state.cache = TaskCacheState()
            state.protocolLoad = nil
            return hop
        }
        if let next { send(next.request, bypassingCache: next.reason == .unconditional) }
    }
}
