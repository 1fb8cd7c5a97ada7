// URLRequest.swift
//
// The URL load request value, source-compatible with FoundationNetworking's `URLRequest`. Plain stored
// properties make it a true value type (no shared reference to copy on write). Header fields live in
// `URLRequest+HeaderFields.swift`, equality and descriptions in `URLRequest+Conformances.swift`, the
// cache-policy and service-type enums in `URLRequest+Policies.swift`, the bridge to `NSURLRequest` in
// `URLRequest+Bridging.swift`.

import Foundation

/// A URL load request, independent of protocol and URL scheme (FoundationNetworking's `URLRequest`).
///
/// Semantics follow FoundationNetworking: `httpMethod` defaults to `"GET"`, reads back `"GET"` after being
/// set to `nil`, and well-known methods are upper-cased; `httpBody` and `httpBodyStream` exclude each
/// other, and setting either one to `nil` removes any body. Equality compares what FoundationNetworking
/// compares (see `==`), which notably excludes header fields, the body data and the timeout.
public struct URLRequest: Sendable {
    // MARK: Target

    /// The URL of the receiver.
    public var url: URL?

    /// The main document URL associated with this load, used for the cookie "same domain as main
    /// document" policy.
    public var mainDocumentURL: URL?

    // MARK: Loading policy

    /// The cache policy of the receiver.
    public var cachePolicy: CachePolicy

    /// The idle timeout of the request in seconds: the longest time that may pass without any load activity.
    /// Once given (to `init(url:cachePolicy:timeoutInterval:)` or assigned), the more restrictive of it and
    /// the session configuration's `timeoutIntervalForRequest` applies; until then the session's does.
    public var timeoutInterval: TimeInterval {
        didSet { isTimeoutIntervalSet = true }
    }

    /// Whether `timeoutInterval` was given to the initialiser or assigned, even if the value equals the
    /// default: only then does it take part in the request's timeout.
    internal private(set) var isTimeoutIntervalSet = false

    /// The network service type of the request; `.default` unless set.
    public var networkServiceType: NetworkServiceType = .default

    /// Whether the request may use a cellular interface; `true` by default.
    public var allowsCellularAccess = true

    /// Whether the request may use an interface the system considers expensive; `true` by default.
    public var allowsExpensiveNetworkAccess = true

    /// Whether the request may use an interface in low-data (constrained) mode; `true` by default.
    public var allowsConstrainedNetworkAccess = true

    /// Whether cookies are sent with, and stored from, this request; `true` by default.
    public var httpShouldHandleCookies = true

    /// Whether the request may be sent before the previous response on the connection was received;
    /// `true` by default (as in FoundationNetworking; the session decides whether it pipelines at all).
    public var httpShouldUsePipelining = true

    // MARK: Message

    /// The normalised method behind `httpMethod`.
    private var normalizedHTTPMethod = "GET"

    /// The header fields in the order they were set, or `nil` when none were ever set (see
    /// `URLRequest+HeaderFields.swift`).
    internal var headerFields: [HeaderField]?

    /// The request body: bytes or a stream, never both.
    internal var body: Body?

    /// What `URLProtocol.setProperty(_:forKey:in:)` stored with the request (not part of equality).
    internal var protocolProperties = ProtocolProperties()

    /// FWNetworking addition: a raw request. When set, these bytes are written exactly as they are (no field
    /// added or changed, no line ending normalised; the URL's target, the method, the header fields and the
    /// body are not sent) on a new connection to the URL's origin (TLS for https, trusted as any task's
    /// connection), and the connection closes after the response. The response is read as any other, so its
    /// named deviations reach `URLSessionTaskTransactionMetrics.fwResponseDeviations` (and
    /// `httpRefusesDeviations` refuses them). The bytes' first word (up to the first space) is the method
    /// the response is framed for (a HEAD response has no body). A redirect's request does not inherit the
    /// bytes. Not part of equality and not archived. nil by default.
    public var fwRawRequest: Data?

    // MARK: Initialisation

    /// Creates a request for `url` with the given cache policy (default `.useProtocolCachePolicy`). Its
    /// `timeoutInterval` reads 60 seconds but was not given: the session's `timeoutIntervalForRequest` applies.
    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy) {
        self.url = url.absoluteURL
        self.cachePolicy = cachePolicy
        self.timeoutInterval = 60
    }

    /// Creates a request for `url` with the given cache policy and timeout interval: the more restrictive of
    /// `timeoutInterval` and the session's `timeoutIntervalForRequest` applies to it.
    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy, timeoutInterval: TimeInterval) {
        self.init(url: url, cachePolicy: cachePolicy)
        // Assigned in an initialiser, `timeoutInterval` does not run its `didSet`: the flag is set here.
        self.timeoutInterval = timeoutInterval
        self.isTimeoutIntervalSet = true
    }

    // MARK: Method and body

    /// The HTTP request method; `"GET"` by default and after being set to `nil`. The methods GET, HEAD,
    /// POST, PUT, DELETE and CONNECT are stored upper-cased whatever case they are given in; any other
    /// method is kept as given.
    public var httpMethod: String? {
        get { normalizedHTTPMethod }
        set { normalizedHTTPMethod = Self.normalizedMethod(newValue) }
    }

    /// The data sent as the message body; `nil` when there is none or the body is a stream.
    public var httpBody: Data? {
        get {
            guard case .data(let data) = body else { return nil }
            return data
        }
        set { body = newValue.map(Body.data) }
    }

    /// The stream the message body is read from; `nil` when there is none or the body is data.
    ///
    /// The stream is returned for examination only: reading it is the job of the task that sends the request.
    public var httpBodyStream: InputStream? {
        get {
            guard case .stream(let stream) = body else { return nil }
            return stream
        }
        set { body = newValue.map(Body.stream) }
    }

    /// `method` as FoundationNetworking stores it: `nil` becomes `"GET"`, the six well-known methods are
    /// upper-cased, anything else is kept verbatim.
    private static func normalizedMethod(_ method: String?) -> String {
        guard let method else { return "GET" }
        let wellKnown = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT"]
        return wellKnown.first { $0.isEqualIgnoringASCIICase(method) } ?? method
    }
}

// MARK: - Body

extension URLRequest {
    /// What a request sends as its message body.
    ///
    /// `@unchecked Sendable` because `InputStream` is not `Sendable`. The request only stores the reference
    /// and compares it by identity; the stream's own state is read solely by the one task that uploads it,
    /// from one thread at a time (the contract FoundationNetworking's `URLRequest` has as well).
    enum Body: @unchecked Sendable { // the stream is read by one task only
        /// A body held in memory.
        case data(Data)
        /// A body read from a stream while the request is sent.
        case stream(InputStream)
    }
}
