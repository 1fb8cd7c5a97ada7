// URLCache.swift
//
// The URL cache, source-compatible with FoundationNetworking's `URLCache`: a key-value store of
// `CachedURLResponse`s by request, in two tiers, both least recently used first out within a byte capacity:
// memory (MemoryCacheStore.swift) and disk (DiskCacheStore.swift, one checksummed file per entry, format in
// DiskCacheEntryCodec.swift). Lookup tries memory, then disk (a disk hit is copied to memory); a store goes
// to memory and, for `.allowed`, to disk; `.allowedInMemoryOnly` keeps memory only (and removes a disk copy).
//
// Keys (CacheKey.swift): the request's URL without fragment, GET requests only; removal goes by URL. The
// public methods are a store and nothing more, as in FoundationNetworking: they do not judge freshness or
// Vary. The HTTP caching rules of RFC 9111 are pure functions (CachePolicyDecision.swift and its
// neighbours) that the session applies around these methods, so that a subclass overriding them is heard.
//
// The task variants use the task's current request; `getCachedResponse` answers on a global queue, so a
// disk read never blocks its caller. Every open member is in the class body so that subclasses can
// override it (members of extensions cannot be overridden).
//
// Time comes from a clock (the system clock unless a test gives another): the storage time stamped on
// every entry is what `removeCachedResponses(since:)` compares.

import Foundation

// MARK: - CacheClock

/// Where the cache reads the current time.
struct CacheClock: Sendable {
    /// The current time.
    let now: @Sendable () -> Date

    /// The system's wall clock.
    static let system = CacheClock { Date() }
}

// MARK: - URLCache

/// A cache of URL responses in memory and on disk (FoundationNetworking's `URLCache`).
///
/// `@unchecked Sendable` (an open class cannot be checked): its stored properties are constants; the tiers
/// keep their state behind their own `LockedBox`.
open class URLCache: NSObject, @unchecked Sendable { // tiers: LockedBox each; the rest immutable
    /// Where a cached response may be stored.
    public enum StoragePolicy: UInt, Sendable {
        /// In memory and on disk.
        case allowed
        /// In memory only.
        case allowedInMemoryOnly
        /// Not at all.
        case notAllowed
    }

    // MARK: Storage

    /// The memory tier.
    let memory: MemoryCacheStore
    /// The disk tier.
    let disk: DiskCacheStore
    /// Where storage times come from.
    let clock: CacheClock

    // MARK: Shared

    /// The shared cache: unless another was assigned, 4 MiB in memory and 20 MiB on disk in
    /// `$XDG_CACHE_HOME/FWNetworking/<process name>/URLCache` (or `~/.cache/...`), created on first use.
    open class var shared: URLCache {
        get { sharedCache }
        set { sharedCache = newValue }
    }

    // MARK: Initialisation

    /// Creates a cache with the given capacities in bytes, on disk in `path`: an absolute path as it is, a
    /// relative one under the default cache root (`$XDG_CACHE_HOME/FWNetworking/<process name>`, see
    /// `shared`), nil for `URLCache` in that root. The directory is created when missing; when it cannot
    /// be, the cache keeps responses in memory only.
    public init(memoryCapacity: Int, diskCapacity: Int, diskPath path: String?) {
        memory = MemoryCacheStore(capacity: memoryCapacity)
        disk = DiskCacheStore(directory: URLCache.directory(forDiskPath: path), capacity: diskCapacity)
        clock = .system
        super.init()
    }

    /// Creates a cache with the given capacities in bytes, on disk in `directory` (nil: the default
    /// directory, as for `init(memoryCapacity:diskCapacity:diskPath:)` with a nil path).
    public convenience init(memoryCapacity: Int, diskCapacity: Int, directory: URL? = nil) {
        self.init(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity,
                  diskDirectory: directory ?? Self.directory(forDiskPath: nil), clock: .system)
    }

    /// Creates a cache on `diskDirectory` (nil: memory only) that reads the time from `clock`.
    init(memoryCapacity: Int, diskCapacity: Int, diskDirectory: URL?, clock: CacheClock) {
        memory = MemoryCacheStore(capacity: memoryCapacity)
        disk = DiskCacheStore(directory: diskDirectory, capacity: diskCapacity)
        self.clock = clock
        super.init()
    }

    // MARK: Lookup and storage

    /// The response stored for `request` (a GET), from memory or else from disk; nil when there is none.
    /// Freshness is not judged here.
    open func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
        guard let key = CacheKey(storableRequest: request) else { return nil }
        if let hit = memory.response(for: key) {
            disk.touch(key)
            return hit
        }
        guard let hit = disk.response(for: key) else { return nil }
        memory.store(hit, for: key)
        return hit
    }

    /// Stores `cachedResponse` for `request` (a GET), as its storage policy allows, replacing what was
    /// stored for the request's URL. The request's fields named by the response's Vary are recorded.
    open func storeCachedResponse(_ cachedResponse: CachedURLResponse, for request: URLRequest) {
        guard let key = CacheKey(storableRequest: request), cachedResponse.storagePolicy != .notAllowed else {
            return
        }
        let stamped = cachedResponse.stamped(storedAt: clock.now(), for: request)
        memory.store(stamped, for: key)
        if stamped.storagePolicy == .allowed {
            disk.store(stamped, for: key)
        } else {
            disk.removeResponse(for: key)
        }
    }

    /// Removes the response stored for `request`'s URL, whatever the request's method.
    open func removeCachedResponse(for request: URLRequest) {
        guard let url = request.url else { return }
        let key = CacheKey(url: url)
        memory.removeResponse(for: key)
        disk.removeResponse(for: key)
    }

    /// Removes every stored response.
    open func removeAllCachedResponses() {
        memory.removeResponses(storedSince: .distantPast)
        disk.removeResponses(storedSince: .distantPast)
    }

    /// Removes every response stored at or after `date`.
    open func removeCachedResponses(since date: Date) {
        memory.removeResponses(storedSince: date)
        disk.removeResponses(storedSince: date)
    }

    // MARK: Capacity and usage

    /// The memory tier's capacity in bytes; lowering it evicts the least recently used responses at once.
    open var memoryCapacity: Int {
        get { memory.capacity }
        set { memory.capacity = newValue }
    }

    /// The disk tier's capacity in bytes; lowering it evicts the least recently used entries at once.
    open var diskCapacity: Int {
        get { disk.capacity }
        set { disk.capacity = newValue }
    }

    /// The bytes the memory tier holds.
    open var currentMemoryUsage: Int {
        memory.usage
    }

    /// The bytes the disk tier's entry files occupy.
    open var currentDiskUsage: Int {
        disk.usage
    }

    // MARK: Data task variants

    /// Stores `cachedResponse` for the current request of `dataTask`.
    open func storeCachedResponse(_ cachedResponse: CachedURLResponse, for dataTask: URLSessionDataTask) {
        guard let request = dataTask.currentRequest else { return }
        storeCachedResponse(cachedResponse, for: request)
    }

    /// Looks up the response stored for the current request of `dataTask` off the caller's thread and hands
    /// it (or nil) to `completionHandler` on a global queue.
    open func getCachedResponse(for dataTask: URLSessionDataTask,
                                completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void) {
        guard let request = dataTask.currentRequest else {
            completionHandler(nil)
            return
        }
        DispatchQueue.global(qos: .utility).async {
            completionHandler(self.cachedResponse(for: request))
        }
    }

    /// Removes the response stored for the current request's URL of `dataTask`.
    open func removeCachedResponse(for dataTask: URLSessionDataTask) {
        guard let request = dataTask.currentRequest else { return }
        removeCachedResponse(for: request)
    }
}
