import Foundation

// MARK: - WebSocket task factories

extension URLSession {
    /// Creates a WebSocket task for `url` (`ws`, `wss`, `http` or `https`).
    public func webSocketTask(with url: URL) -> URLSessionWebSocketTask {
        webSocketTask(with: URLRequest(url: url))
    }

    /// Creates a WebSocket task for `url` that asks the server for one of `protocols` (most preferred first).
    public func webSocketTask(with url: URL, protocols: [String]) -> URLSessionWebSocketTask {
        makeWebSocketTask(URLRequest(url: url), protocols: protocols)
    }

    /// Creates a WebSocket task for `request`, whose fields go with the handshake; a `Sec-WebSocket-Protocol`
    /// field (a comma-separated list) names the subprotocols to ask for.
    public func webSocketTask(with request: URLRequest) -> URLSessionWebSocketTask {
        let protocols = request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol")?
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        return makeWebSocketTask(request, protocols: protocols)
    }

    private func makeWebSocketTask(_ request: URLRequest, protocols: [String]) -> URLSessionWebSocketTask {
        var request = request
        // The handshake's answer is never stored, nor served from the cache.
        request.cachePolicy = .reloadIgnoringLocalCacheData
        return register {
            URLSessionWebSocketTask(session: self, identifier: $0, request: request, protocols: protocols)
        }
    }
}
