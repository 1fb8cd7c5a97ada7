// URLProtocol.swift
//
// The extension point for loading requests some other way than FWNetworking's HTTP engine (a stub for
// tests, a custom scheme), source-compatible with FoundationNetworking's `URLProtocol`. A session asks the
// classes of its configuration's `protocolClasses` (the shared session: also the registered classes) on
// every request it sends, before its URL cache and its transport (`URLSessionTask+Protocol.swift`).
//
// Where FoundationNetworking's abstract methods trap, these do something a program can live with:
// `canInit(with:)` answers false, `canonicalRequest(for:)` returns the request as it is, `startLoading()`
// fails the load with `URLError.unsupportedURL`, `stopLoading()` does nothing.
//
// Unlike FoundationNetworking's, this class is `Sendable`: its client and task are behind a lock, its
// request and cached response never change (a subclass's own state is its own to guard).

import Foundation
import FWTransport

/// An abstract class that loads requests of some kind; subclass it and override `canInit(with:)`,
/// `canonicalRequest(for:)`, `startLoading()` and `stopLoading()` (FoundationNetworking's `URLProtocol`).
open class URLProtocol: NSObject, @unchecked Sendable { // `links` is a LockedBox; the rest are lets
    /// What may change after initialisation.
    private struct Links {
        var client: (any URLProtocolClient)?
        var task: URLSessionTask?
    }

    private let links: LockedBox<Links>
    private let loadRequest: URLRequest
    private let storedCachedResponse: CachedURLResponse?

    /// The classes `registerClass(_:)` added.
    private static let registry = LockedBox(URLProtocolRegistry())

    // MARK: Initialisation

    /// Creates a protocol instance that loads `request` and reports to `client`; `cachedResponse` is the
    /// URL cache's response for the request, for the protocol to judge (`cachedResponseIsValid`).
    public required init(request: URLRequest, cachedResponse: CachedURLResponse?,
                         client: (any URLProtocolClient)?) {
        loadRequest = request
        storedCachedResponse = cachedResponse
        links = LockedBox(Links(client: client))
        super.init()
    }

    /// Creates a protocol instance for `task`: it loads the task's current request (with the task's upload
    /// body as its `httpBody` or `httpBodyStream`).
    public required convenience init(task: URLSessionTask, cachedResponse: CachedURLResponse?,
                                     client: (any URLProtocolClient)?) {
        self.init(request: task.requestForProtocol, cachedResponse: cachedResponse, client: client)
        self.task = task
    }

    // MARK: State

    /// The object the protocol reports its load to.
    open var client: (any URLProtocolClient)? {
        get { withLinks { $0.client } }
        set { withLinks { $0.client = newValue } }
    }

    /// The request the protocol loads.
    open var request: URLRequest { loadRequest }

    /// The URL cache's response for the request, if it had one (the protocol decides whether it is valid).
    open var cachedResponse: CachedURLResponse? { storedCachedResponse }

    /// The task the protocol loads for, when it was made for one.
    open var task: URLSessionTask? {
        get { withLinks { $0.task } }
        set { withLinks { $0.task = newValue } }
    }

    // MARK: For subclasses

    /// Whether this class loads `request`. The base class answers false.
    open class func canInit(with request: URLRequest) -> Bool {
        false
    }

    /// Whether this class loads `task`: by default, whether it loads the task's current request.
    open class func canInit(with task: URLSessionTask) -> Bool {
        task.currentRequest.map { canInit(with: $0) } ?? false
    }

    /// The canonical form of `request` (the same input always gives the same output); it becomes the
    /// task's current request and the URL cache's key. The base class returns `request` as it is.
    open class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Whether `a` and `b` are the same for the URL cache: by default, whether their canonical forms are
    /// GET requests for one URL (fragments aside).
    open class func requestIsCacheEquivalent(_ a: URLRequest, to b: URLRequest) -> Bool {
        guard let first = CacheKey(storableRequest: canonicalRequest(for: a)),
              let second = CacheKey(storableRequest: canonicalRequest(for: b)) else { return false }
        return first == second
    }

    /// Starts loading `request`, reporting to `client` from any thread. The base class fails the load with
    /// `URLError.unsupportedURL`.
    open func startLoading() {
        client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL, url: request.url,
                                                             description: "\(type(of: self)) cannot load it"))
    }

    /// Stops loading. A session calls it exactly once per instance it started, when the load ends for any
    /// reason (finished, failed, redirected elsewhere, cancelled, timed out). The base class does nothing.
    open func stopLoading() {}

    // MARK: Request properties

    /// The value stored in `request` under `key`, or nil.
    open class func property(forKey key: String, in request: URLRequest) -> Any? {
        request.protocolProperties[key]
    }

    /// Stores `value` under `key` in `request`; it travels with the request (and its `URLRequest` bridges).
    open class func setProperty(_ value: Any, forKey key: String, in request: NSMutableURLRequest) {
        request.request.protocolProperties[key] = value
    }

    /// Removes the value stored under `key` in `request`.
    open class func removeProperty(forKey key: String, in request: NSMutableURLRequest) {
        request.request.protocolProperties[key] = nil
    }

    // MARK: Registration

    /// Adds `protocolClass` to the classes the shared session consults (most recently registered first);
    /// false, and nothing registered, when it is not a `URLProtocol` subclass.
    @discardableResult
    open class func registerClass(_ protocolClass: AnyClass) -> Bool {
        guard let protocolType = protocolClass as? URLProtocol.Type else { return false }
        withRegistry { $0.register(protocolType) }
        return true
    }

    /// Removes `protocolClass` from the registered classes.
    open class func unregisterClass(_ protocolClass: AnyClass) {
        withRegistry { $0.unregister(protocolClass) }
    }

    /// The registered classes, most recently registered first.
    static var registeredClasses: [URLProtocol.Type] {
        withRegistry { $0.classes }
    }

    // MARK: The doors

    /// Reads or changes the client and the task under their lock.
    private func withLinks<Result>(_ body: (inout Links) -> Result) -> Result {
        links.withLock(body)
    }

    /// Reads or changes the registered classes under their lock.
    private static func withRegistry<Result>(_ body: (inout URLProtocolRegistry) -> Result) -> Result {
        registry.withLock(body)
    }
}

// MARK: - Registry

/// The classes registered with `URLProtocol.registerClass(_:)`, which the shared session consults: each class
/// once, the most recently registered first.
struct URLProtocolRegistry {
    private(set) var classes: [URLProtocol.Type] = []

    /// Puts `protocolClass` first (taking it from where it was, if registered already).
    mutating func register(_ protocolClass: URLProtocol.Type) {
        unregister(protocolClass)
        classes.insert(protocolClass, at: 0)
    }

    /// Removes `protocolClass`, if registered.
    mutating func unregister(_ protocolClass: AnyClass) {
        classes.removeAll { ObjectIdentifier($0) == ObjectIdentifier(protocolClass) }
    }
}

// MARK: - Request properties

/// The protocol-specific values a request carries (`URLProtocol.property(forKey:in:)`).
///
/// `@unchecked Sendable` because the values are `Any`: a request only carries them, for the protocol
/// implementation that stored them (on every platform they are meant to be property-list values). A value
/// type: a copy of a request has its own properties.
struct ProtocolProperties: @unchecked Sendable { // values: Any, only carried (see above)
    private var values = [String: Any]()

    /// The value under `key`; assigning nil removes it.
    subscript(key: String) -> Any? {
        get { values[key] }
        set { values[key] = newValue }
    }
}
