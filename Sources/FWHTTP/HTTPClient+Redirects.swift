import FWWire

// MARK: - HTTPClient: redirects
//
// The redirect policy as one function of the response head and the request that got it (RFC 9110
// §15.4): 301, 302, 303, 307 and 308 with a `Location` are followed while the policy allows. 303 turns
// any method but HEAD into GET, and so do 301 and 302 for POST (as browsers and curl -L do); a GET loses
// the body and the fields that described it. A hop to another origin drops the credentials. A 307/308 of
// a streamed body, which cannot be sent twice, is the response.

extension HTTPClient {
    /// The next hop after `head`, or nil when the response is the final one.
    func redirect(from head: HTTPResponseHead, of request: HTTPClientRequest, at uri: URI, count: Int)
        throws(HTTPClientError) -> (HTTPClientRequest, URI)? {
        guard case .follow(let max) = configuration.redirectPolicy, [301, 302, 303, 307, 308].contains(head.status),
              let location = head.headers.first(name: "Location")
        else { return nil }
        var next = request
        let becomesGet = (head.status == 303 && request.method != "HEAD")
            || ([301, 302].contains(head.status) && request.method == "POST")
        if becomesGet {
            next.method = "GET"
            next.body = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.headers.remove(name: name)
            }
        } else if case .stream? = request.body {
            return nil
        }
        guard count < max else { throw .tooManyRedirects(max) }
        let target: URI
        do throws(URIError) { target = try uri.resolving(location) } catch { throw .invalidURL(error) }
        if target.scheme != uri.scheme || target.host != uri.host || target.port != uri.port {
            for name in ["Authorization", "Cookie", "Proxy-Authorization"] { next.headers.remove(name: name) }
        }
        next.url = target.description
        return (next, target)
    }
}
