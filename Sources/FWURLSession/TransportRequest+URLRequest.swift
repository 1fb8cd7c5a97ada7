import Foundation
import FWTransport

// MARK: - TransportRequest from URLRequest

extension TransportRequest {
    /// The `User-Agent` sent when the request and the configuration name none.
    static let defaultUserAgent = "FWNetworking/0.1"

    /// Translates a `URLRequest` under `configuration`: target from the URL, fields in the order the
    /// caller set them, then the configuration's additional fields, then `User-Agent`, `Accept` and
    /// `Accept-Encoding` defaults (gzip and deflate bodies are decoded whoever asked for them). Throws
    /// `badURL` or `unsupportedURL` for URLs the engine cannot carry.
    init(_ request: URLRequest, configuration: URLSessionConfiguration,
         priority: Float = URLSessionTask.defaultPriority, tracing: Bool) throws(URLError) {
        guard let url = request.url else {
            throw URLError(.badURL, url: nil, description: "the request has no URL")
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw URLError(.unsupportedURL, url: url, description: "unsupported URL scheme in \(url.absoluteString)")
        }
        guard let key = ConnectionKey(url: url) else {
            throw URLError(.badURL, url: url, description: "no host in \(url.absoluteString)")
        }
        guard (1...65535).contains(key.port) else {
            throw URLError(.badURL, url: url, description: "invalid port \(key.port)")
        }
        // The URL's own accessors (it is parsed already); URLComponents would parse it again per request.
        let absolute = url.baseURL == nil ? url : url.absoluteURL
        let path = absolute.path(percentEncoded: true)
        var target = path.isEmpty ? "/" : path
        if let query = absolute.query(percentEncoded: true) { target += "?" + query }

        let method = request.httpMethod ?? "GET"
        var headers = HTTPHeaders()
        for field in request.orderedHeaderFields { headers.add(name: field.name, value: field.value) }
        for (name, value) in configuration.httpAdditionalHeaders ?? [:] {
            guard let name = name.base as? String, !headers.contains(name: name) else { continue }
            headers.add(name: name, value: "\(value)")
        }
        if !headers.contains(name: "User-Agent") { headers.add(name: "User-Agent", value: Self.defaultUserAgent) }
        if !headers.contains(name: "Accept") { headers.add(name: "Accept", value: "*/*") }
        if !headers.contains(name: "Accept-Encoding") { headers.add(name: "Accept-Encoding", value: "gzip, deflate") }

        var body = request.httpBody.map { [UInt8]($0) }
        if body == nil, ["POST", "PUT", "PATCH"].contains(method) { body = [] }

        self.init(key: key,
                  head: HTTPRequestHead(method: method, target: target, headers: headers),
                  body: body.map(TransportRequestBody.bytes),
                  idleTimeout: Self.idleTimeout(of: request, configuration: configuration),
                  priority: Int((priority * 1000).rounded()),
                  decodesContent: true,
                  tracesBytes: tracing)
    }

    /// The longest a request without timeout is given: about 68 years (`Duration` and the loops' deadlines
    /// stay far from overflowing).
    static let unboundedTimeout = Duration.seconds(Int64(Int32.max))

    /// The request's timeout: the more restrictive of the session's `timeoutIntervalForRequest` and, when the
    /// request gives one, its own `timeoutInterval` (Apple's rule).
    static func idleTimeout(of request: URLRequest, configuration: URLSessionConfiguration) -> Duration {
        var intervals = [configuration.timeoutIntervalForRequest]
        if request.isTimeoutIntervalSet { intervals.append(request.timeoutInterval) }
        return timeout(intervals)
    }

    /// The shortest of `intervals` (seconds) as a duration; one of 0 or less sets no limit.
    static func timeout(_ intervals: [TimeInterval]) -> Duration {
        guard let interval = intervals.filter({ $0 > 0 }).min(),
              interval < TimeInterval(Int32.max) else { return unboundedTimeout }
        return .seconds(interval)
    }
}
