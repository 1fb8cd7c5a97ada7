import FWLoop
import FWTransport
import FWWire

// MARK: - HTTPClient: redirects
//
// The redirect policy as one function of the response head and the request that got it (RFC 9110
// §15.4): 301, 302, 303, 307 and 308 with a `Location` are followed while the policy allows. 303 turns
// any method but HEAD into GET, and so do 301 and 302 for POST (as browsers and curl -L do); a GET loses
// the body and the fields that described it. A hop to another origin drops the credentials. A 307/308 of
// a streamed body, which cannot be sent twice, is the response. A redirect's own body is read and dropped
// (up to 64 KiB, else the hop is aborted), so its connection serves the next hop and its metrics are kept.

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

// MARK: - RedirectWalk

/// The hops of one request, for ``HTTPClient/execute(_:)`` and ``HTTPClient/blockingExecute(_:)`` alike
/// (they differ only in how they wait for each head): each hop's exchange, started on the client's
/// transport, until a head that is not a redirect to follow. One loop times the whole request, redirects
/// included.
struct RedirectWalk {
    private let client: HTTPClient
    private let timerLoop: EventLoop
    private let deadline: Deadline?
    private var request: HTTPClientRequest
    private var uri: URI
    /// The exchanges of the hops before this one: each drops its body and runs to its end.
    private var earlier: [ResponseExchange] = []
    private var redirects = 0

    init(_ request: HTTPClientRequest, client: HTTPClient, timerLoop: EventLoop) throws(HTTPClientError) {
        do throws(URIError) { uri = try URI(request.url) } catch { throw .invalidURL(error) }
        self.request = request
        self.client = client
        self.timerLoop = timerLoop
        deadline = client.configuration.requestTimeout.map { timerLoop.now() + $0 }
    }

    /// Starts the current hop.
    func startHop() throws(HTTPClientError) -> ResponseExchange {
        let exchange = ResponseExchange(transport: client.transport, loop: timerLoop, earlier: earlier)
        exchange.start(try client.transportRequest(request, to: uri), deadline: deadline)
        return exchange
    }

    /// The most body bytes of a redirect that are read (and dropped) to keep its connection; a larger body
    /// aborts the hop instead.
    static let redirectBodyLimit = 64 * 1024

    /// The response when `head` (the current hop's, from `exchange`) is the final one; else nil, with the
    /// hop left to drop its body and the walk moved to the redirect's target.
    mutating func response(to head: HTTPResponseHead, of exchange: ResponseExchange)
        throws(HTTPClientError) -> HTTPClientResponse? {
        guard let next = try client.redirect(from: head, of: request, at: uri, count: redirects) else {
            return HTTPClientResponse(head: head, url: uri, body: HTTPClientResponse.Body(exchange: exchange))
        }
        exchange.discardBody(upTo: Self.redirectBodyLimit)
        earlier.append(exchange)
        (request, uri) = next
        redirects += 1
        return nil
    }
}
