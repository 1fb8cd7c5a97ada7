// HTTPRequestSerializer: the request side of the session manager. It holds the defaults every request
// gets (headers, the URLRequest properties it mirrors, the string encoding) and encodes parameters as a
// URL query (GET, HEAD, DELETE) or an application/x-www-form-urlencoded body. Building requests is in
// `+Requests`, query strings in `+QueryString`, multipart forms in `+Multipart`, the default
// Accept-Language and User-Agent in `+Defaults`.

import FWLoop
import Foundation

// MARK: - HTTPRequestQueryStringSerializationStyle

/// How `HTTPRequestSerializer` turns parameters into a query string when no block is set.
///
/// A struct rather than the port's enum, so that styles can be added; `.default` is the only one.
public struct HTTPRequestQueryStringSerializationStyle: RawRepresentable, Hashable, Sendable {
    /// The style's number (AFNetworking's `AFHTTPRequestQueryStringSerializationStyle` value).
    public let rawValue: Int

    /// Creates the style numbered `rawValue`.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Percent-escaped `key=value` pairs joined by `&`, nested collections as `a[b]=c` and `a[]=1`.
    public static let `default` = HTTPRequestQueryStringSerializationStyle(rawValue: 0)
}

// MARK: - HTTPRequestSerializer

/// Builds requests with default headers and form-encoded parameters (FWFramework's
/// `HTTPRequestSerializer`, AFNetworking's `AFHTTPRequestSerializer`).
///
/// Every property may be read and written from any thread: the state sits behind one lock, and a
/// request is built from a snapshot of it. A serializer can be archived (`NSSecureCoding`: everything
/// but the query string block) and copied (`NSCopying`: everything), as AFNetworking's can.
open class HTTPRequestSerializer: NSObject, URLRequestSerialization, NSSecureCoding, NSCopying,
    @unchecked Sendable { // all state in `state` (a LockedBox)
    /// Turns the request being serialized and its parameters into a query string (nil: none).
    public typealias QueryStringSerialization = @Sendable (_ request: URLRequest, _ parameters: Any) throws -> String?

    /// Everything the serializer holds, copied as a whole when a request is built.
    struct State: Sendable {
        var stringEncoding: String.Encoding = .utf8
        var mirrored = MirroredRequestProperties()
        var httpMethodsEncodingParametersInURI: Set<String> = ["GET", "HEAD", "DELETE"]
        /// Default header fields in the order they were first set; names compare case-insensitively.
        var headers: [(name: String, value: String)] = []
        var queryStringSerializationStyle = HTTPRequestQueryStringSerializationStyle.default
        var queryStringSerialization: QueryStringSerialization?
    }

    /// The serializer's state. Touched only inside `withLock`.
    let state = LockedBox(State())

    /// A serializer with `Accept-Language` from the process's locale settings and a `User-Agent` naming
    /// the program, the system and FWNetworking (see `+Defaults`).
    override public required init() {
        super.init()
        setValue(Self.defaultAcceptLanguage(), forHTTPHeaderField: "Accept-Language")
        setValue(Self.defaultUserAgent(), forHTTPHeaderField: "User-Agent")
    }

    // MARK: NSSecureCoding, NSCopying

    /// True: a serializer decodes only the types it encoded.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes what `encode(with:)` archived (see HTTPRequestSerializer+Coding.swift); nil when the
    /// archive is not a request serializer's.
    public required init?(coder: NSCoder) {
        guard let decoded = State(coder: coder) else { return nil }
        super.init()
        state.withLock { $0 = decoded }
    }

    /// Encodes the string encoding, the methods encoding parameters in the URI, the default headers (in
    /// order), the mirrored request properties that were set and the query string style; never the
    /// query string block, which cannot be archived.
    open func encode(with coder: NSCoder) {
        state.withLock { $0 }.encode(with: coder)
    }

    /// A serializer of the same class with the same settings, query string block included.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = type(of: self).init()
        copySettings(into: copy)
        return copy
    }

    /// Gives `copy` (of this serializer's class) these settings; each subclass adds its own.
    func copySettings(into copy: HTTPRequestSerializer) {
        let settings = state.withLock { $0 }
        copy.state.withLock { $0 = settings }
    }

    // MARK: Building requests

    /// A new request for `method` and `urlString` carrying the mirrored properties that were set, then
    /// serialized with `parameters` by `requestBySerializingRequest(_:parameters:)`. Throws
    /// `NSURLErrorBadURL` in the serialization domain when `urlString` is not a URL (the port falls back
    /// to an empty URL).
    open func request(method: String, urlString: String, parameters: Any?) throws -> URLRequest {
        try requestBySerializingRequest(makeRequest(method: method, urlString: urlString), parameters: parameters)
    }

    /// A copy of `request` with the default headers it lacks and `parameters` encoded: for a method in
    /// `httpMethodsEncodingParametersInURI` as a query appended to the URL (before any fragment), for
    /// any other method as the body, `application/x-www-form-urlencoded` unless the request names a
    /// Content-Type. As in AFNetworking, the body is set even without parameters (an empty form).
    /// Parameters are a dictionary (see `queryString(from:)`) unless a query string block is set.
    open func requestBySerializingRequest(_ request: URLRequest, parameters: Any?) throws -> URLRequest {
        let snapshot = state.withLock { $0 }
        var serialized = request
        snapshot.addDefaultHeaders(to: &serialized)
        let query = try parameters.flatMap { try snapshot.queryString(for: request, parameters: $0) }
        if snapshot.encodesParametersInURI(request) {
            if let query, !query.isEmpty, let url = serialized.url {
                serialized.url = try Self.url(url, appendingQuery: query, request: request)
            }
        } else {
            if serialized.value(forHTTPHeaderField: "Content-Type") == nil {
                serialized.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
            guard let body = (query ?? "").data(using: snapshot.stringEncoding) else {
                throw Self.serializationError(NSURLErrorCannotDecodeContentData,
                                              "The query string cannot be encoded in the string encoding",
                                              request: request)
            }
            serialized.httpBody = body
        }
        return serialized
    }

    // MARK: Encoding

    /// The encoding of form-encoded bodies and of the multipart field values made from parameters;
    /// UTF-8 unless set.
    open var stringEncoding: String.Encoding {
        get { state.withLock { $0.stringEncoding } }
        set { state.withLock { $0.stringEncoding = newValue } }
    }

    /// The methods whose parameters go into the URL query instead of the body: GET, HEAD and DELETE
    /// unless set. Compared with the request's method upper-cased.
    open var httpMethodsEncodingParametersInURI: Set<String> {
        get { state.withLock { $0.httpMethodsEncodingParametersInURI } }
        set { state.withLock { $0.httpMethodsEncodingParametersInURI = newValue } }
    }

    // MARK: Default headers

    /// The header fields added to every request that does not set them itself.
    open var httpRequestHeaders: [String: String] {
        state.withLock { state in
            Dictionary(state.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// Sets (or, with nil, removes) the default header `field`; names compare case-insensitively and
    /// keep the spelling of the first set.
    open func setValue(_ value: String?, forHTTPHeaderField field: String) {
        state.withLock { state in
            let index = state.headers.firstIndex { $0.name.caseInsensitiveCompare(field) == .orderedSame }
            switch (index, value) {
            case (let index?, let value?): state.headers[index].value = value
            case (let index?, nil): state.headers.remove(at: index)
            case (nil, let value?): state.headers.append((name: field, value: value))
            case (nil, nil): break
            }
        }
    }

    /// The default value of header `field` (case-insensitive), or nil.
    open func value(forHTTPHeaderField field: String) -> String? {
        state.withLock { state in
            state.headers.first { $0.name.caseInsensitiveCompare(field) == .orderedSame }?.value
        }
    }

    /// Sets a default `Authorization: Basic` header for `username` and `password` (UTF-8, Base64).
    open func setAuthorizationHeaderField(username: String, password: String) {
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
    }

    /// Removes the default `Authorization` header.
    open func clearAuthorizationHeader() {
        setValue(nil, forHTTPHeaderField: "Authorization")
    }

    // MARK: Query strings

    /// Uses the built-in query string `style` (and forgets any block set before).
    open func setQueryStringSerialization(style: HTTPRequestQueryStringSerializationStyle) {
        state.withLock { state in
            state.queryStringSerializationStyle = style
            state.queryStringSerialization = nil
        }
    }

    /// Uses `block` to turn parameters into a query string (nil: back to the style). The block may run
    /// on any thread, hence `@Sendable`; what it throws is thrown by the request methods.
    open func setQueryStringSerialization(block: QueryStringSerialization?) {
        state.withLock { $0.queryStringSerialization = block }
    }
}
