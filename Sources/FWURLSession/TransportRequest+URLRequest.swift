import Foundation
import FWTransport

// MARK: - TransportRequest from URLRequest

extension URLRequest {
    /// The `User-Agent` sent when the request and the configuration name none.
    static let defaultUserAgent = "FWNetworking/0.1"

    /// The request as the session sends it, on every hop: its own fields in order; the configuration's
    /// additional fields it does not set; `User-Agent`, `Accept` and `Accept-Encoding` defaults (`br` too
    /// when `ContentCodings.decodesBrotli`); and the stored `cookies` for its URL, after a `Cookie` field of
    /// its own (a request's own cookies are kept).
    /// The cache judges `Vary` against this request, and the transport writes it. A request without cookies
    /// takes its session's `template`: as it is when it has no fields of its own, else under its own fields.
    func outgoing(configuration: URLSessionConfiguration, cookies: String?, template: RequestTemplate? = nil)
        -> URLRequest {
        var request = self
        if let template, cookies == nil {
            if let own = headerFields, !own.isEmpty {
                request.headerFields = template.fields(under: own)
            } else {
                request.headerFields = template.fields
            }
            return request
        }
        let additional = configuration.httpAdditionalHeaders ?? [:]
        request.reserveFieldCapacity(adding: additional.count + 4)
        for (name, value) in additional {
            guard let name = name.base as? String, request.value(forHTTPHeaderField: name) == nil else { continue }
            request.appendField(name, "\(value)")
        }
        let defaults = [("User-Agent", Self.defaultUserAgent), ("Accept", "*/*"),
                        ("Accept-Encoding", ContentCodings.acceptEncoding)]
        for (name, value) in defaults where request.value(forHTTPHeaderField: name) == nil {
            request.appendField(name, value)
        }
        if let cookies {
            let own = request.value(forHTTPHeaderField: "Cookie")
            request.setValue(own.map { $0 + "; " + cookies } ?? cookies, forHTTPHeaderField: "Cookie")
        }
        return request
    }
}

extension TransportRequest {
    /// Translates an outgoing `URLRequest` (`URLRequest.outgoing(configuration:cookies:)`) under
    /// `configuration`: target from the URL, fields in the order the request has them (gzip, deflate and br
    /// bodies are decoded whoever asked for them); the key names the proxy `proxies` choose for the URL.
    /// Throws `badURL` or `unsupportedURL` for URLs the engine cannot carry (`unsupportedURL` for a request
    /// without a URL, as FoundationNetworking does), and `unsupportedURL` when their proxy setting cannot be
    /// used. With `webSocket` (a WebSocket task's handshake) `ws` and `wss` URLs are carried too. `tracing`
    /// (`DelegateRouter.wantsTrace`): the bytes moved and the connection used are reported; without it no
    /// `.connected` event is sent, since its only reader is a trace message. A raw request
    /// (`URLRequest.fwRawRequest`) carries its bytes, on a key of its own, with its content left encoded.
    init(_ request: URLRequest, configuration: URLSessionConfiguration, proxies: ProxySettings = .direct,
         priority: Float = URLSessionTask.defaultPriority, tracing: Bool,
         webSocket: WebSocketUpgrade? = nil, template: RequestTemplate? = nil) throws(URLError) {
        guard let url = request.url else {
            // FoundationNetworking's code for a request without a URL.
            throw URLError(.unsupportedURL, url: nil, description: "the request has no URL")
        }
        let parts = URLParts(url)
        guard let scheme = parts.scheme,
              scheme == "http" || scheme == "https" || webSocket != nil && (scheme == "ws" || scheme == "wss") else {
            throw URLError(.unsupportedURL, url: url, description: "unsupported URL scheme in \(url.absoluteString)")
        }
        guard let host = parts.host, !host.isEmpty else {
            throw URLError(.badURL, url: url, description: "no host in \(url.absoluteString)")
        }
        let port = parts.port ?? ConnectionKey.defaultPort(forScheme: scheme)
        guard (1...65535).contains(port) else {
            throw URLError(.badURL, url: url, description: "invalid port \(port)")
        }
        let key = ConnectionKey(lowercasedScheme: scheme, host: host, port: port,
                                proxy: try proxies.proxy(for: url, scheme: scheme, host: host, port: port))
        let target = parts.target

        if let raw = request.fwRawRequest {
            // A raw request: its own bytes on a connection of its own; the first word frames the response.
            let bytes = [UInt8](raw)
            let method = String(decoding: bytes.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
            self.init(key: key.isolated(), head: HTTPRequestHead(method: method, target: target, headers: HTTPHeaders()),
                      idleTimeout: Self.idleTimeout(of: request, configuration: configuration),
                      priority: Int((priority * 1000).rounded()), decodesContent: false,
                      tracesBytes: tracing, reportsConnection: tracing, rawBytes: bytes)
            return
        }
        let method = request.httpMethod ?? "GET"
        var headers: HTTPHeaders
        // The request's own list, read in place (`orderedHeaderFields` would build another array).
        let fields = request.headerFields ?? []
        if let template, template.matches(fields) {
            headers = template.wireFields
        } else {
            headers = HTTPHeaders()
            headers.reserveCapacity(fields: fields.count,
                                    bytes: fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
            for field in fields { headers.add(name: field.name, value: field.value) }
        }

        var body = request.httpBody.map { [UInt8]($0) }
        if body == nil, method == "POST" || method == "PUT" || method == "PATCH" { body = [] }

        self.init(key: key,
                  head: HTTPRequestHead(method: method, target: target, headers: headers),
                  body: body.map(TransportRequestBody.bytes),
                  idleTimeout: Self.idleTimeout(of: request, configuration: configuration),
                  priority: Int((priority * 1000).rounded()),
                  decodesContent: true,
                  tracesBytes: tracing,
                  reportsConnection: tracing,
                  webSocket: webSocket,
                  pipelining: configuration.httpShouldUsePipelining && request.httpShouldUsePipelining)
    }

    /// The longest a request without timeout is given: about 68 years (`Duration` and the loops' deadlines
    /// stay far from overflowing).
    static let unboundedTimeout = Duration.seconds(Int64(Int32.max))

    /// The request's timeout: the more restrictive of the session's `timeoutIntervalForRequest` and, when the
    /// request gives one, its own `timeoutInterval` (Apple's rule).
    static func idleTimeout(of request: URLRequest, configuration: URLSessionConfiguration) -> Duration {
        let session = configuration.timeoutIntervalForRequest
        guard request.isTimeoutIntervalSet else { return timeout(session) }
        let own = request.timeoutInterval
        // The shorter of two limits, or the one set when the other is 0 or less (no array: every request).
        return timeout(session > 0 && own > 0 ? min(session, own) : max(session, own))
    }

    /// `interval` (seconds) as a duration; 0 or less sets no limit (`timeout(_:)` of one interval).
    static func timeout(_ interval: TimeInterval) -> Duration {
        guard interval > 0, interval < TimeInterval(Int32.max) else { return unboundedTimeout }
        // In whole nanoseconds, what the loops' deadlines count: `Duration.seconds(_: Double)` converts
        // through 128-bit integers, some 270 instructions on every request. Under `Int32.max` seconds the
        // product stays far inside `Int64`.
        return .nanoseconds(Int64((interval * 1_000_000_000).rounded()))
    }

    /// The shortest of `intervals` (seconds) as a duration; one of 0 or less sets no limit.
    static func timeout(_ intervals: [TimeInterval]) -> Duration {
        var shortest: TimeInterval?
        for interval in intervals where interval > 0 { shortest = min(shortest ?? interval, interval) }
        return shortest.map(timeout) ?? unboundedTimeout
    }
}
