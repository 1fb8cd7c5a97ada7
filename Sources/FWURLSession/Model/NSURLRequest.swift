// NSURLRequest.swift
//
// The reference types `URLRequest` bridges to, source-compatible with FoundationNetworking's
// `NSURLRequest` (immutable) and `NSMutableURLRequest`. Both wrap one `URLRequest` value, so every rule of
// the value type (method normalisation, header validation, body exclusivity) holds for them too, and a
// bridge in either direction is a copy of that value — protocol properties included. What NSSecureCoding
// writes is in `NSURLRequest+Coding.swift`.
//
// Like FoundationNetworking's, these classes are not `Sendable`: share the `URLRequest` value instead.

import Foundation

// MARK: - NSURLRequest

/// An immutable URL load request, independent of protocol and URL scheme (FoundationNetworking's
/// `NSURLRequest`); `URLRequest` bridges to it (`URLRequest.ReferenceType`).
open class NSURLRequest: NSObject, NSSecureCoding, NSCopying, NSMutableCopying {
    /// The request's value; only `NSMutableURLRequest` changes it.
    var request: URLRequest

    /// A request for `url` with the default cache policy and a 60 second timeout.
    public convenience init(url: URL) {
        self.init(url: url, cachePolicy: .useProtocolCachePolicy, timeoutInterval: 60)
    }

    /// A request for `url` with the given cache policy and timeout interval.
    public init(url: URL, cachePolicy: NSURLRequest.CachePolicy, timeoutInterval: TimeInterval) {
        request = URLRequest(url: url, cachePolicy: cachePolicy, timeoutInterval: timeoutInterval)
        super.init()
    }

    /// A request holding `request` (the bridge from `URLRequest`).
    init(request: URLRequest) {
        self.request = request
        super.init()
    }

    // MARK: Coding

    /// True: requests are archived with secure coding.
    open class var supportsSecureCoding: Bool { true }

    /// Archives the request; its body stream and protocol properties are not archived (as in
    /// FoundationNetworking, a stream is lost when a request is coded).
    open func encode(with aCoder: NSCoder) {
        request.encode(with: aCoder)
    }

    /// Decodes a request archived by `encode(with:)`; nil when the coder is not keyed or holds no request.
    public required init?(coder aDecoder: NSCoder) {
        guard let request = URLRequest.decoded(from: aDecoder) else { return nil }
        self.request = request
        super.init()
    }

    // MARK: Copying

    /// An immutable copy: the receiver itself when it is an `NSURLRequest`, a new one holding the same
    /// request for a subclass.
    open func copy(with zone: NSZone? = nil) -> Any {
        type(of: self) == NSURLRequest.self ? self : NSURLRequest(request: request)
    }

    /// An immutable copy (see `copy(with:)`).
    open override func copy() -> Any {
        copy(with: nil)
    }

    /// A mutable copy holding the same request.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        NSMutableURLRequest(request: request)
    }

    /// A mutable copy holding the same request.
    open override func mutableCopy() -> Any {
        mutableCopy(with: nil)
    }

    // MARK: Properties

    /// The URL of the receiver.
    open var url: URL? { request.url }

    /// The main document URL, for the cookie "same domain as main document" policy.
    open var mainDocumentURL: URL? { request.mainDocumentURL }

    /// The cache policy of the receiver.
    open var cachePolicy: NSURLRequest.CachePolicy { request.cachePolicy }

    /// The idle timeout of the receiver, in seconds.
    open var timeoutInterval: TimeInterval { request.timeoutInterval }

    /// The HTTP request method of the receiver; `"GET"` by default.
    open var httpMethod: String? { request.httpMethod }

    /// A dictionary of all the HTTP header fields of the receiver; `nil` until a field is set.
    open var allHTTPHeaderFields: [String: String]? { request.allHTTPHeaderFields }

    /// The value of the header field named `field` (case-insensitive), or `nil` when it is not set.
    open func value(forHTTPHeaderField field: String) -> String? {
        request.value(forHTTPHeaderField: field)
    }

    /// The data sent as the message body; `nil` when there is none or the body is a stream.
    open var httpBody: Data? { request.httpBody }

    /// The stream the message body is read from; `nil` when there is none or the body is data.
    open var httpBodyStream: InputStream? { request.httpBodyStream }

    /// The network service type of the receiver.
    open var networkServiceType: NSURLRequest.NetworkServiceType { request.networkServiceType }

    /// Whether the request may use a cellular interface.
    open var allowsCellularAccess: Bool { request.allowsCellularAccess }

    /// Whether cookies are sent with, and stored from, this request.
    open var httpShouldHandleCookies: Bool { request.httpShouldHandleCookies }

    /// Whether the request may be sent before the previous response on the connection was received.
    open var httpShouldUsePipelining: Bool { request.httpShouldUsePipelining }

    // MARK: Equality and description

    /// Whether `object` is a request equal to this one in the `URLRequest` sense.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSURLRequest else { return false }
        return other === self || other.request == request
    }

    /// A hash of what `isEqual(_:)` compares.
    open override var hash: Int {
        request.hashValue
    }

    /// `<NSURLRequest: 0x…> { URL: … }`.
    open override var description: String {
        let address = Unmanaged.passUnretained(self).toOpaque()
        return "<\(type(of: self)): \(address)> { URL: \(request.url?.absoluteString ?? "(null)") }"
    }
}

// MARK: - NSMutableURLRequest

/// A mutable URL load request (FoundationNetworking's `NSMutableURLRequest`).
open class NSMutableURLRequest: NSURLRequest {
    /// A request for `url` with the default cache policy and a 60 second timeout.
    public convenience init(url: URL) {
        self.init(url: url, cachePolicy: .useProtocolCachePolicy, timeoutInterval: 60)
    }

    /// A request for `url` with the given cache policy and timeout interval.
    public override init(url: URL, cachePolicy: NSURLRequest.CachePolicy, timeoutInterval: TimeInterval) {
        super.init(url: url, cachePolicy: cachePolicy, timeoutInterval: timeoutInterval)
    }

    /// A request holding `request`.
    override init(request: URLRequest) {
        super.init(request: request)
    }

    /// Decodes a request archived by `encode(with:)`.
    public required init?(coder aDecoder: NSCoder) {
        super.init(coder: aDecoder)
    }

    /// An immutable copy holding the same request.
    open override func copy(with zone: NSZone? = nil) -> Any {
        NSURLRequest(request: request)
    }

    // MARK: Properties

    /// The URL of the receiver.
    open override var url: URL? {
        get { request.url }
        set { request.url = newValue }
    }

    /// The main document URL, for the cookie "same domain as main document" policy.
    open override var mainDocumentURL: URL? {
        get { request.mainDocumentURL }
        set { request.mainDocumentURL = newValue }
    }

    /// The cache policy of the receiver.
    open override var cachePolicy: NSURLRequest.CachePolicy {
        get { request.cachePolicy }
        set { request.cachePolicy = newValue }
    }

    /// The idle timeout of the receiver, in seconds.
    open override var timeoutInterval: TimeInterval {
        get { request.timeoutInterval }
        set { request.timeoutInterval = newValue }
    }

    /// The HTTP request method; setting `nil` restores `"GET"`.
    open override var httpMethod: String? {
        get { request.httpMethod }
        set { request.httpMethod = newValue }
    }

    /// Every header field; assigning replaces them all.
    open override var allHTTPHeaderFields: [String: String]? {
        get { request.allHTTPHeaderFields }
        set { request.allHTTPHeaderFields = newValue }
    }

    /// Sets the header field named `field` (case-insensitive); `nil` removes it.
    open func setValue(_ value: String?, forHTTPHeaderField field: String) {
        request.setValue(value, forHTTPHeaderField: field)
    }

    /// Appends `value` to the header field named `field`, comma-separated, or adds the field.
    open func addValue(_ value: String, forHTTPHeaderField field: String) {
        request.addValue(value, forHTTPHeaderField: field)
    }

    /// The data sent as the message body (it replaces a body stream).
    open override var httpBody: Data? {
        get { request.httpBody }
        set { request.httpBody = newValue }
    }

    /// The stream the message body is read from (it replaces body data).
    open override var httpBodyStream: InputStream? {
        get { request.httpBodyStream }
        set { request.httpBodyStream = newValue }
    }

    /// The network service type of the receiver.
    open override var networkServiceType: NSURLRequest.NetworkServiceType {
        get { request.networkServiceType }
        set { request.networkServiceType = newValue }
    }

    /// Whether the request may use a cellular interface.
    open override var allowsCellularAccess: Bool {
        get { request.allowsCellularAccess }
        set { request.allowsCellularAccess = newValue }
    }

    /// Whether cookies are sent with, and stored from, this request.
    open override var httpShouldHandleCookies: Bool {
        get { request.httpShouldHandleCookies }
        set { request.httpShouldHandleCookies = newValue }
    }

    /// Whether the request may be sent before the previous response on the connection was received.
    open override var httpShouldUsePipelining: Bool {
        get { request.httpShouldUsePipelining }
        set { request.httpShouldUsePipelining = newValue }
    }
}
