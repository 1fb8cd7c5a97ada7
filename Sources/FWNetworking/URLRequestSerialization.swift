// URLRequestSerialization: what a request serializer does for the session manager — build a request
// from a method, a URL string and parameters, or add parameters (and its default headers) to a request
// that already exists. HTTPRequestSerializer and its JSON and property-list subclasses conform.

import Foundation

// MARK: - URLRequestSerialization

/// Turns parameters into a request: its URL query, or its body, plus the serializer's default headers.
///
/// Named as in FWFramework's Swift port. Both requirements throw a serialization error (domain
/// `HTTPRequestSerializer.URLRequestSerializationErrorDomain`) for parameters or URLs they cannot encode;
/// they never trap. Conforming types are `Sendable`: the session manager shares one among threads.
public protocol URLRequestSerialization: AnyObject, Sendable {
    /// A copy of `request` with the serializer's default headers (those it does not set itself) and
    /// `parameters` encoded into its URL or body.
    func requestBySerializingRequest(_ request: URLRequest, parameters: Any?) throws -> URLRequest

    /// A new request for `method` and `urlString`, with `parameters` encoded as
    /// `requestBySerializingRequest(_:parameters:)` does.
    func request(method: String, urlString: String, parameters: Any?) throws -> URLRequest
}
