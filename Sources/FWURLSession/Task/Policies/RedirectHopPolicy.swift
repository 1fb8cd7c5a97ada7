import Foundation

// MARK: - Policy 6: redirects
//
// A 3xx with a usable Location (`RedirectPolicy.nextRequest`: the method, body and credentials the next
// request keeps) is offered to the delegate (`willPerformHTTPRedirection`); without one that hears it, it is
// followed. Following it replaces the hop (`Hop.Reason.redirect`, which counts towards
// `RedirectPolicy.maxRedirects`); refusing it makes the 3xx the task's response. Past the limit the task fails
// with `httpTooManyRedirects`. A URL protocol's redirect goes through the same offer (`offer`).

/// Policy 6: whether and where a 3xx is followed.
enum RedirectHopPolicy {
    /// A 3xx with a usable Location asks the delegate (or fails past the limit).
    static func decide(_ hop: Hop, _ response: HTTPURLResponse, _ state: TaskPolicyState) -> HopDecision {
        guard let request = hop.request, let next = RedirectPolicy.nextRequest(after: response, from: request) else {
            return .continue
        }
        return offer(next, response: response, state)
    }

    /// The redirect to `next` that `response` asks for: asked, unless the task followed too many already.
    static func offer(_ next: URLRequest, response: HTTPURLResponse, _ state: TaskPolicyState) -> HopDecision {
        guard state.redirectCount < RedirectPolicy.maxRedirects else {
            return .fail(URLError(.httpTooManyRedirects, url: response.url ?? next.url,
                                  description: "more than \(RedirectPolicy.maxRedirects) redirects"))
        }
        return .ask(.redirect(next, response: response))
    }

    /// The delegate's answer: the request to follow, or nil to keep the 3xx as the response.
    static func resolve(_ chosen: URLRequest?) -> HopDecision {
        chosen.map { .replace(NextHop(request: $0, reason: .redirect)) } ?? .continue
    }

    /// The hop is being replaced by `next`: a redirect counts.
    static func replaced(by next: NextHop, _ state: inout TaskPolicyState) {
        if next.reason == .redirect { state.redirectCount += 1 }
    }
}
