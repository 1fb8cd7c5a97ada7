// The pieces `HTTPRequestSerializer` builds requests from: a fresh request for a URL string, the
// default headers a request lacks, the query string from parameters, and a URL with a query appended.

import Foundation

// MARK: - Requests

extension HTTPRequestSerializer {
    /// A request for `urlString` with `method` and the mirrored properties that were set.
    func makeRequest(method: String, urlString: String) throws -> URLRequest {
        guard let url = URL(string: urlString) else {
            throw Self.serializationError(NSURLErrorBadURL, "'\(urlString)' is not a valid URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        state.withLock { $0.mirrored }.apply(to: &request)
        return request
    }

    /// `url` with `query` appended: after `&` when it already has a query, else after `?`, and before
    /// the fragment (AFNetworking appends after the fragment, which puts the query inside it).
    static func url(_ url: URL, appendingQuery query: String, request: URLRequest) throws -> URL {
        let text = url.absoluteString
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        let head = text[..<fragmentStart]
        let separator = head.hasSuffix("?") || head.hasSuffix("&") ? "" : head.contains("?") ? "&" : "?"
        guard let result = URL(string: head + separator + query + text[fragmentStart...]) else {
            throw serializationError(NSURLErrorBadURL, "The query makes the URL invalid", request: request)
        }
        return result
    }
}

// MARK: - Snapshot helpers

extension HTTPRequestSerializer.State {
    /// Adds each default header the request does not have yet, in the order they were set.
    func addDefaultHeaders(to request: inout URLRequest) {
        for header in headers where request.value(forHTTPHeaderField: header.name) == nil {
            request.setValue(header.value, forHTTPHeaderField: header.name)
        }
    }

    /// Whether the parameters of `request` go into its URL (its method, upper-cased, is listed).
    func encodesParametersInURI(_ request: URLRequest) -> Bool {
        httpMethodsEncodingParametersInURI.contains((request.httpMethod ?? "GET").uppercased())
    }

    /// The query string for `parameters`: the block's when one is set, else the style's, which needs a
    /// dictionary (the port quietly encodes anything else as an empty query; this throws instead). A
    /// style other than `.default` (made from an unknown raw value) throws too.
    func queryString(for request: URLRequest, parameters: Any) throws -> String? {
        if let queryStringSerialization {
            return try queryStringSerialization(request, parameters)
        }
        guard queryStringSerializationStyle == .default else {
            throw HTTPRequestSerializer.serializationError(
                NSURLErrorCannotDecodeContentData,
                "Unknown query string style \(queryStringSerializationStyle.rawValue)", request: request)
        }
        guard let dictionary = QueryString.dictionary(parameters) else {
            throw HTTPRequestSerializer.serializationError(
                NSURLErrorCannotDecodeContentData,
                "The parameters must be a dictionary to form a query string, not \(type(of: parameters))",
                request: request)
        }
        return HTTPRequestSerializer.queryString(from: dictionary)
    }
}

// MARK: - For serializers that encode a body

extension HTTPRequestSerializer {
    /// Whether the parameters of `request` go into its URL.
    func encodesParametersInURI(_ request: URLRequest) -> Bool {
        state.withLock { $0.encodesParametersInURI(request) }
    }

    /// `request` with the default headers it lacks and `contentType` unless it names a Content-Type.
    func requestForBody(_ request: URLRequest, contentType: String) -> URLRequest {
        var serialized = request
        state.withLock { $0 }.addDefaultHeaders(to: &serialized)
        if serialized.value(forHTTPHeaderField: "Content-Type") == nil {
            serialized.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        return serialized
    }
}
