import Foundation

// MARK: - Cookies
//
// Every hop of a task — the first request, each redirect, each answered challenge — sends the cookies the
// configuration's storage holds for that hop's URL, and stores the cookies its response sets, 3xx and 401
// included, so a cookie set by a redirect goes with the request that follows it. Both only when the
// configuration (`httpShouldSetCookies`) and the request (`httpShouldHandleCookies`) allow it; the
// configuration's `httpCookieAcceptPolicy` decides which cookies a response may set.

extension URLSessionTask {
    /// The `Cookie` value the storage has for `request`'s URL, nil when none or cookies are off.
    func storedCookies(for request: URLRequest) -> String? {
        guard let url = request.url, let storage = cookieStorage(for: request) else { return nil }
        return storage.cookieFieldValue(for: url)
    }

    /// Stores the cookies `response` to `request` sets.
    func storeCookies(from response: HTTPURLResponse, for request: URLRequest) {
        guard let url = request.url, let storage = cookieStorage(for: request) else { return }
        let fields = response.orderedHeaderFields.filter { $0.name.isEqualIgnoringASCIICase("Set-Cookie") }
        guard !fields.isEmpty else { return }
        storage.setCookies(fromSetCookieFields: fields.map(\.value), for: url, mainDocumentURL: request.mainDocumentURL,
                           policy: session.sessionConfiguration.httpCookieAcceptPolicy)
    }

    private func cookieStorage(for request: URLRequest) -> HTTPCookieStorage? {
        let configuration = session.sessionConfiguration
        guard configuration.httpShouldSetCookies, request.httpShouldHandleCookies else { return nil }
        return configuration.httpCookieStorage
    }
}
