import Foundation

// MARK: - Policy 2: cookies
//
// Every hop the network carries — the first request, each redirect, each answered challenge — is written
// with the cookies the configuration's storage holds for its URL (and the session's default fields), and
// the cookies its response sets are stored, 3xx and 401 included, so a cookie set by a redirect goes with the
// request that follows it. Both only when the configuration (`httpShouldSetCookies`) and the request
// (`httpShouldHandleCookies`) allow it; the configuration's `httpCookieAcceptPolicy` decides which cookies a
// response may set. A URL protocol's hop neither sends nor stores any (its walk stops before this policy).

/// Policy 2: the `Cookie` field of the outgoing request, and the cookies responses set.
enum CookieHopPolicy {
    /// Writes the hop's outgoing request: its cookies and the session's default fields (`template`).
    static func prepare(_ hop: inout Hop, _ configuration: URLSessionConfiguration, template: RequestTemplate? = nil)
        -> HopDecision {
        guard let request = hop.request else { return .continue }
        hop.outgoing = request.outgoing(configuration: configuration, cookies: cookieField(for: request, configuration),
                                        template: template)
        return .continue
    }

    /// Stores the cookies `response` to the hop's request sets.
    static func observe(_ hop: Hop, _ response: HTTPURLResponse, _ configuration: URLSessionConfiguration) {
        guard let request = hop.request, let url = request.url, let storage = storage(for: request, configuration)
        else { return }
        let fields = response.fieldValues(named: "Set-Cookie")
        guard !fields.isEmpty else { return }
        storage.setCookies(fromSetCookieFields: fields, for: url, mainDocumentURL: request.mainDocumentURL,
                           policy: configuration.httpCookieAcceptPolicy)
    }

    /// The `Cookie` value the storage has for `request`'s URL, nil when none or cookies are off.
    static func cookieField(for request: URLRequest, _ configuration: URLSessionConfiguration) -> String? {
        guard let url = request.url, let storage = storage(for: request, configuration) else { return nil }
        return storage.cookieFieldValue(for: url)
    }

    private static func storage(for request: URLRequest, _ configuration: URLSessionConfiguration)
        -> HTTPCookieStorage? {
        guard configuration.httpShouldSetCookies, request.httpShouldHandleCookies else { return nil }
        return configuration.httpCookieStorage
    }
}
