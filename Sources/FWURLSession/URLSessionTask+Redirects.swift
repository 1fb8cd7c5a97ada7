import Foundation
import FWTransport

// MARK: - Redirects
//
// A 3xx with a usable Location is offered to the delegate (`willPerformHTTPRedirection`), with delivery
// held until it answers. Following it marks the hop: its remaining events are dropped, and when the hop
// ends the next request is sent on the same task (a new metrics transaction). Refusing delivers the 3xx
// as the task's response.

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
            transfer.withLock { $0.followingRedirect = chosen }
        } else {
            deliverResponse(response)
        }
        release(.awaitingRedirectDecision)
    }

    /// The hop whose 3xx is being followed ended: send the next request. A hop that was cancelled or
    /// timed out ends the task instead; one that merely lost the rest of its 3xx body is followed. A hop
    /// that turned the method into GET drops the upload body.
    func endRedirectHop(_ event: TransportEvent) {
        if case .failed(let error) = event, error.isCancelled || error.isTimedOut || error.isShutDown {
            finish(error: session.urlError(error, url: currentRequest?.url))
            return
        }
        let next = transfer.withLock { state -> URLRequest? in
            let next = state.followingRedirect
            if (next?.httpMethod ?? "GET") != (state.currentRequest?.httpMethod ?? "GET") { state.upload = nil }
            state.followingRedirect = nil
            state.redirectCount += 1
            state.currentRequest = next
            state.hopResponse = nil
            return next
        }
        if let next { send(next) }
    }
}
