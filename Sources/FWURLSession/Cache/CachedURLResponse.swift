// CachedURLResponse.swift
//
// A response as the URL cache keeps it, source-compatible with FoundationNetworking's `CachedURLResponse`:
// the response, its body, a user-info dictionary and a storage policy. Equality is FoundationNetworking's:
// response, data and storage policy (user info holds `Any` values and cannot be compared). Copying returns
// the receiver: instances are immutable.
//
// The cache also keeps what RFC 9111 needs and the public API has no place for (`cacheInfo`): when the
// exchange that produced the response happened (for its age) and, once stored, when it was stored and the
// request fields its Vary names. A response the user creates has none of it.

import Foundation

// MARK: - CacheEntryInfo

/// What the cache knows about a response beyond the public API: RFC 9111 §4.2.3's request and response
/// times, and what was recorded when it was stored.
struct CacheEntryInfo: Equatable, Sendable {
    /// When the request that produced the response was sent.
    var requestDate: Date
    /// When the response was received.
    var responseDate: Date
    /// When the cache stored it; nil until then.
    var storedDate: Date?
    /// The storing request's fields that the response's Vary names; nil when unknown (not stored yet, or
    /// not an HTTP response).
    var varyingFields: [VaryingField]?
}

// MARK: - CachedURLResponse

/// A response and its body as stored in a `URLCache` (FoundationNetworking's `CachedURLResponse`).
///
/// `@unchecked Sendable`: every stored property is assigned once during initialisation and never again.
open class CachedURLResponse: NSObject, NSCopying, @unchecked Sendable { // immutable after init
    // MARK: Properties

    /// The response.
    open private(set) var response: URLResponse

    /// The body of the response.
    open private(set) var data: Data

    /// Information stored with the response by whoever created it; nil by default.
    open private(set) var userInfo: [AnyHashable: Any]?

    /// Where the response may be stored: memory and disk, memory only, or nowhere.
    open private(set) var storagePolicy: URLCache.StoragePolicy

    /// The exchange and storage times and the Vary record; nil for a response the user created.
    let cacheInfo: CacheEntryInfo?

    // MARK: Initialisation

    /// Creates a cached response that may be stored in memory and on disk (`.allowed`).
    public init(response: URLResponse, data: Data) {
        self.response = response
        self.data = data
        self.userInfo = nil
        self.storagePolicy = .allowed
        self.cacheInfo = nil
        super.init()
    }

    /// Creates a cached response with the given user information and storage policy.
    public init(response: URLResponse, data: Data, userInfo: [AnyHashable: Any]? = nil,
                storagePolicy: URLCache.StoragePolicy) {
        self.response = response
        self.data = data
        self.userInfo = userInfo
        self.storagePolicy = storagePolicy
        self.cacheInfo = nil
        super.init()
    }

    /// Creates a cached response that carries what the cache knows about it.
    init(response: URLResponse, data: Data, userInfo: [AnyHashable: Any]?, storagePolicy: URLCache.StoragePolicy,
         cacheInfo: CacheEntryInfo?) {
        self.response = response
        self.data = data
        self.userInfo = userInfo
        self.storagePolicy = storagePolicy
        self.cacheInfo = cacheInfo
        super.init()
    }

    // MARK: Derived copies

    /// The same response with other cache information.
    func with(cacheInfo: CacheEntryInfo) -> CachedURLResponse {
        CachedURLResponse(response: response, data: data, userInfo: userInfo, storagePolicy: storagePolicy,
                          cacheInfo: cacheInfo)
    }

    /// The same response as stored for `request` at `now`: the exchange times it carries (or `now` when it
    /// carries none, as a response the user made) and the request's fields its Vary names.
    func stamped(storedAt now: Date, for request: URLRequest) -> CachedURLResponse {
        let varyingFields = (response as? HTTPURLResponse).flatMap {
            CacheVary.varyingFields(of: request, for: $0)
        }
        return with(cacheInfo: CacheEntryInfo(
            requestDate: cacheInfo?.requestDate ?? now,
            responseDate: cacheInfo?.responseDate ?? now,
            storedDate: now,
            varyingFields: varyingFields
        ))
    }

    // MARK: NSCopying

    /// Returns the receiver: cached responses are immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Returns the receiver: cached responses are immutable.
    open override func copy() -> Any {
        copy(with: nil)
    }

    // MARK: Equality

    /// Whether `object` is a cached response with an equal response, the same data and the same storage
    /// policy (FoundationNetworking's definition: user info is not compared).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CachedURLResponse else { return false }
        return self === other
            || (response == other.response && data == other.data && storagePolicy == other.storagePolicy)
    }

    /// A hash of the properties `isEqual(_:)` compares.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(response)
        hasher.combine(data)
        hasher.combine(storagePolicy)
        return hasher.finalize()
    }
}
