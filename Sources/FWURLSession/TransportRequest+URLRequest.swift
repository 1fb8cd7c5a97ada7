import Foundation
import FWTransport

// MARK: - TransportRequest from URLRequest

extension TransportRequest {
    /// The `User-Agent` sent when the request and the configuration name none.
    static let defaultUserAgent = "FWNetworking/0.1"

    /// Translates a `URLRequest` under `configuration`: target from the URL, fields in the order the
    /// caller set them, then the configuration's additional fields, then `User-Agent`, `Accept` and
    /// `Accept-Encoding` defaults (gzip and deflate bodies are decoded whoever asked for them); the key
    /// names the proxy `proxies` choose for the URL. Throws `badURL` or `unsupportedURL` for URLs the
    /// engine cannot carry, and `unsupportedURL` when their proxy setting cannot be used.
    init(_ request: URLRequest, configuration: URLSessionConfiguration, proxies: ProxySettings = .direct,
         priority: Float = URLSessionTask.defaultPriority, tracing: Bool) throws(URLError) {
        guard let url = request.url else {
            throw URLError(.badURL, url: nil, description: "the request has no URL")
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw URLError(.unsupportedURL, url: url, description: "unsupported URL scheme in \(url.absoluteString)")
        }
        guard var key = ConnectionKey(url: url) else {
            throw URLError(.badURL, url: url, description: "no host in \(url.absoluteString)")
        }
        guard (1...65535).contains(key.port) else {
            throw URLError(.badURL, url: url, description: "invalid port \(key.port)")
        }
        key.proxy = try proxies.proxy(for: url, scheme: key.scheme, host: key.host, port: key.port)
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

        // A request whose timeout was never assigned takes the session's (as FoundationNetworking does).
        let interval = request.isTimeoutIntervalSet ? request.timeoutInterval : configuration.timeoutIntervalForRequest
        self.init(key: key,
                  head: HTTPRequestHead(method: method, target: target, headers: headers),
                  body: body.map(TransportRequestBody.bytes),
                  idleTimeout: .seconds(interval > 0 ? interval : .greatestFiniteMagnitude / 2),
                  priority: Int((priority * 1000).rounded()),
                  decodesContent: true,
                  tracesBytes: tracing)
    }
}
