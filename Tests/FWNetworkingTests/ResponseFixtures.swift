import Foundation
import FWNetworking
import Testing

// MARK: - ResponseFixtures

/// Responses and readable outcomes for the serializer tables.
enum ResponseFixtures {
    /// The URL every canned response is for.
    static let urlText = "https://example.test/resource"

    /// An HTTP/1.1 response with `status` and, when given, a Content-Type header.
    static func response(_ status: Int, _ contentType: String?) throws -> HTTPURLResponse {
        let url = try #require(URL(string: urlText))
        let fields = contentType.map { ["Content-Type": $0] } ?? [:]
        return try #require(
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    /// An error and the errors under it, top first, as "domain code" ("S" for the serializers' domain).
    static func chain(_ error: any Error) -> [String] {
        var links: [String] = []
        var current: NSError? = error as NSError
        while let link = current {
            let domain = link.domain == HTTPResponseSerializer.URLResponseSerializationErrorDomain ? "S" : link.domain
            links.append("\(domain) \(link.code)")
            current = link.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        return links
    }

    /// A response object as comparable text: JSON with sorted keys for JSON-compatible values, "data:"
    /// and the bytes as UTF-8 for Data, "nil" for nil.
    static func text(_ object: Any?) throws -> String {
        guard let object else { return "nil" }
        if let data = object as? Data { return "data:" + String(decoding: data, as: UTF8.self) }
        let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: json, as: UTF8.self)
    }

    /// What a serializer made of `data`: the object as `text(_:)`, or the error chain as `chain(_:)`.
    static func outcome(_ serializer: any URLResponseSerialization, _ response: URLResponse?, _ data: Data)
        throws -> Outcome {
        do {
            return .object(try text(try serializer.responseObject(for: response, data: data)))
        } catch {
            return .error(chain(error))
        }
    }

    /// An object (as text) or an error chain.
    enum Outcome: Equatable, CustomStringConvertible {
        case object(String)
        case error([String])

        var description: String {
            switch self {
            case .object(let text): "object \(text)"
            case .error(let chain): "error \(chain.joined(separator: " <- "))"
            }
        }
    }
}
