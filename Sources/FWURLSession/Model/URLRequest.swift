// URLRequest.swift
//
// The URL load request value, source-compatible with FoundationNetworking's `URLRequest`. A value type whose
// properties live in one storage object shared by copies until one of them changes (copy on write). Plain
// stored properties were chosen first (a true value type, no shared reference); measured, they made every
// copy cost: a request is copied about 12 times on its way through a task (original, current, the hop's
// request, outgoing and transmitted requests, the policies' walks), each copy retaining its half-dozen
// references and moving more than a hundred bytes, and a `Hop` holding four of them is moved in and out of the
// task's lock by every policy walk. With one reference a copy is one retain (the `Hop` is now 344 bytes); a
// small GET through URLSession dropped from 159,459 to 149,047 instructions (`Scripts/profile.sh callgrind
// 2000`, release). A request that changes after it was copied pays one allocation for its own storage.
// Header fields live in `URLRequest+HeaderFields.swift`, equality and descriptions in
// `URLRequest+Conformances.swift`, the cache-policy and service-type enums in `URLRequest+Policies.swift`, the
// bridge to `NSURLRequest` in `URLRequest+Bridging.swift`.

import Foundation

/// A URL load request, independent of protocol and URL scheme (FoundationNetworking's `URLRequest`).
///
/// Semantics follow FoundationNetworking: `httpMethod` defaults to `"GET"`, reads back `"GET"` after being
/// set to `nil`, and well-known methods are upper-cased; `httpBody` and `httpBodyStream` exclude each
/// other, and setting either one to `nil` removes any body. Equality compares what FoundationNetworking
/// compares (see `==`), which notably excludes header fields, the body data and the timeout.
public struct URLRequest: Sendable {
    // MARK: Storage

    /// The request's properties, shared by copies until one of them changes (copy on write).
    ///
    /// `@unchecked Sendable`: a storage is changed only through `writableStorage`, which copies it first
    /// unless this request holds the only reference, so a storage that two requests (or two threads) can
    /// see is never written; `InputStream` and `ProtocolProperties`' values are carried, not used, as below.
    final class Storage: @unchecked Sendable { // written only while uniquely referenced (copy on write)
        var url: URL?
        var mainDocumentURL: URL?
        var cachePolicy: CachePolicy
        var timeoutInterval: TimeInterval
        var isTimeoutIntervalSet = false
        var networkServiceType: NetworkServiceType = .default
        var allowsCellularAccess = true
        var allowsExpensiveNetworkAccess = true
        var allowsConstrainedNetworkAccess = true
        var httpShouldHandleCookies = true
        var httpShouldUsePipelining = true
        var normalizedHTTPMethod = "GET"
        var headerFields: [HeaderField]?
        var body: Body?
        var protocolProperties: ProtocolProperties
        var fwRawRequest: Data?

        init(url: URL?, cachePolicy: CachePolicy, timeoutInterval: TimeInterval) {
            self.url = url
            self.cachePolicy = cachePolicy
            self.timeoutInterval = timeoutInterval
            protocolProperties = ProtocolProperties()
        }

        /// A copy of `other`, for a request about to change.
        init(copying other: Storage) {
            url = other.url
            mainDocumentURL = other.mainDocumentURL
            cachePolicy = other.cachePolicy
            timeoutInterval = other.timeoutInterval
            isTimeoutIntervalSet = other.isTimeoutIntervalSet
            networkServiceType = other.networkServiceType
            allowsCellularAccess = other.allowsCellularAccess
            allowsExpensiveNetworkAccess = other.allowsExpensiveNetworkAccess
            allowsConstrainedNetworkAccess = other.allowsConstrainedNetworkAccess
            httpShouldHandleCookies = other.httpShouldHandleCookies
            httpShouldUsePipelining = other.httpShouldUsePipelining
            normalizedHTTPMethod = other.normalizedHTTPMethod
            headerFields = other.headerFields
            body = other.body
            protocolProperties = other.protocolProperties
            fwRawRequest = other.fwRawRequest
        }
    }

    /// The properties; read directly, written through `writableStorage`.
    private var storage: Storage

    /// The storage, first copied when another request shares it.
    private var writableStorage: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
            return storage
        }
    }

    // MARK: Target

    /// The URL of the receiver.
    public var url: URL? {
        get { storage.url }
        set { writableStorage.url = newValue }
    }

    /// The main document URL associated with this load, used for the cookie "same domain as main
    /// document" policy.
    public var mainDocumentURL: URL? {
        get { storage.mainDocumentURL }
        set { writableStorage.mainDocumentURL = newValue }
    }

    // MARK: Loading policy

    /// The cache policy of the receiver.
    public var cachePolicy: CachePolicy {
        get { storage.cachePolicy }
        set { writableStorage.cachePolicy = newValue }
    }

    /// The idle timeout of the request in seconds: the longest time that may pass without any load activity.
    /// Once given (to `init(url:cachePolicy:timeoutInterval:)` or assigned), the more restrictive of it and
    /// the session configuration's `timeoutIntervalForRequest` applies; until then the session's does.
    public var timeoutInterval: TimeInterval {
        get { storage.timeoutInterval }
        set {
            let storage = writableStorage
            storage.timeoutInterval = newValue
            storage.isTimeoutIntervalSet = true
        }
    }

    /// Whether `timeoutInterval` was given to the initialiser or assigned, even if the value equals the
    /// default: only then does it take part in the request's timeout.
    internal var isTimeoutIntervalSet: Bool { storage.isTimeoutIntervalSet }

    /// The network service type of the request; `.default` unless set.
    public var networkServiceType: NetworkServiceType {
        get { storage.networkServiceType }
        set { writableStorage.networkServiceType = newValue }
    }

    /// Whether the request may use a cellular interface; `true` by default.
    public var allowsCellularAccess: Bool {
        get { storage.allowsCellularAccess }
        set { writableStorage.allowsCellularAccess = newValue }
    }

    /// Whether the request may use an interface the system considers expensive; `true` by default.
    public var allowsExpensiveNetworkAccess: Bool {
        get { storage.allowsExpensiveNetworkAccess }
        set { writableStorage.allowsExpensiveNetworkAccess = newValue }
    }

    /// Whether the request may use an interface in low-data (constrained) mode; `true` by default.
    public var allowsConstrainedNetworkAccess: Bool {
        get { storage.allowsConstrainedNetworkAccess }
        set { writableStorage.allowsConstrainedNetworkAccess = newValue }
    }

    /// Whether cookies are sent with, and stored from, this request; `true` by default.
    public var httpShouldHandleCookies: Bool {
        get { storage.httpShouldHandleCookies }
        set { writableStorage.httpShouldHandleCookies = newValue }
    }

    /// Whether the request may be sent before the previous response on the connection was received;
    /// `true` by default (as in FoundationNetworking; the session decides whether it pipelines at all).
    public var httpShouldUsePipelining: Bool {
        get { storage.httpShouldUsePipelining }
        set { writableStorage.httpShouldUsePipelining = newValue }
    }

    // MARK: Message

    /// The normalised method behind `httpMethod`.
    private var normalizedHTTPMethod: String {
        get { storage.normalizedHTTPMethod }
        set { writableStorage.normalizedHTTPMethod = newValue }
    }

    /// The header fields in the order they were set, or `nil` when none were ever set (see
    /// `URLRequest+HeaderFields.swift`).
    internal var headerFields: [HeaderField]? {
        get { storage.headerFields }
        set { writableStorage.headerFields = newValue }
    }

    /// The request body: bytes or a stream, never both.
    internal var body: Body? {
        get { storage.body }
        set { writableStorage.body = newValue }
    }

    /// What `URLProtocol.setProperty(_:forKey:in:)` stored with the request (not part of equality).
    internal var protocolProperties: ProtocolProperties {
        get { storage.protocolProperties }
        set { writableStorage.protocolProperties = newValue }
    }

    /// FWNetworking addition: a raw request. When set, these bytes are written exactly as they are (no field
    /// added or changed, no line ending normalised; the URL's target, the method, the header fields and the
    /// body are not sent) on a new connection to the URL's origin (TLS for https, trusted as any task's
    /// connection), and the connection closes after the response. The response is read as any other, so its
    /// named deviations reach `URLSessionTaskTransactionMetrics.fwResponseDeviations` (and
    /// `httpRefusesDeviations` refuses them). The bytes' first word (up to the first space) is the method
    /// the response is framed for (a HEAD response has no body). A redirect's request does not inherit the
    /// bytes. Not part of equality and not archived. nil by default.
    public var fwRawRequest: Data? {
        get { storage.fwRawRequest }
        set { writableStorage.fwRawRequest = newValue }
    }

    // MARK: Initialisation

    /// Creates a request for `url` with the given cache policy (default `.useProtocolCachePolicy`). Its
    /// `timeoutInterval` reads 60 seconds but was not given: the session's `timeoutIntervalForRequest` applies.
    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy) {
        storage = Storage(url: url.absoluteURL, cachePolicy: cachePolicy, timeoutInterval: 60)
    }

    /// Creates a request for `url` with the given cache policy and timeout interval: the more restrictive of
    /// `timeoutInterval` and the session's `timeoutIntervalForRequest` applies to it.
    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy, timeoutInterval: TimeInterval) {
        storage = Storage(url: url.absoluteURL, cachePolicy: cachePolicy, timeoutInterval: timeoutInterval)
        storage.isTimeoutIntervalSet = true
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
