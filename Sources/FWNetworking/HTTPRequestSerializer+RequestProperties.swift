// The URLRequest properties a serializer mirrors onto every request it builds. As in AFNetworking (which
// observes which ones were set), only properties set on the serializer are copied: one never set leaves
// the request's own default, so the session configuration's `timeoutIntervalForRequest` still applies
// unless `timeoutInterval` was set here. FWFramework's port copies all six every time.

import Foundation

// MARK: - MirroredRequestProperties

/// The mirrored properties that were set on a serializer; nil for those never set.
struct MirroredRequestProperties: Sendable {
    var allowsCellularAccess: Bool?
    var cachePolicy: URLRequest.CachePolicy?
    var httpShouldHandleCookies: Bool?
    var httpShouldUsePipelining: Bool?
    var networkServiceType: URLRequest.NetworkServiceType?
    var timeoutInterval: TimeInterval?

    /// Copies every property that was set onto `request`.
    func apply(to request: inout URLRequest) {
        if let allowsCellularAccess { request.allowsCellularAccess = allowsCellularAccess }
        if let cachePolicy { request.cachePolicy = cachePolicy }
        if let httpShouldHandleCookies { request.httpShouldHandleCookies = httpShouldHandleCookies }
        if let httpShouldUsePipelining { request.httpShouldUsePipelining = httpShouldUsePipelining }
        if let networkServiceType { request.networkServiceType = networkServiceType }
        if let timeoutInterval { request.timeoutInterval = timeoutInterval }
    }
}

// MARK: - The mirrored properties

extension HTTPRequestSerializer {
    /// The defaults of a request nobody changed, which an unset property reads back.
    private static let untouched = URLRequest(url: URL(fileURLWithPath: "/"))

    /// Whether requests may use a cellular interface. Copied to requests once set; until then it reads
    /// back `URLRequest`'s default (`true`).
    public var allowsCellularAccess: Bool {
        get { state.withLock { $0.mirrored.allowsCellularAccess } ?? Self.untouched.allowsCellularAccess }
        set { state.withLock { $0.mirrored.allowsCellularAccess = newValue } }
    }

    /// The cache policy of requests. Copied to requests once set; until then it reads back
    /// `URLRequest`'s default (`.useProtocolCachePolicy`).
    public var cachePolicy: URLRequest.CachePolicy {
        get { state.withLock { $0.mirrored.cachePolicy } ?? Self.untouched.cachePolicy }
        set { state.withLock { $0.mirrored.cachePolicy = newValue } }
    }

    /// Whether requests send and store cookies. Copied to requests once set; until then it reads back
    /// `URLRequest`'s default (`true`).
    public var httpShouldHandleCookies: Bool {
        get { state.withLock { $0.mirrored.httpShouldHandleCookies } ?? Self.untouched.httpShouldHandleCookies }
        set { state.withLock { $0.mirrored.httpShouldHandleCookies = newValue } }
    }

    /// Whether requests may be pipelined. Copied to requests once set; until then it reads back
    /// `URLRequest`'s default (`true` in FoundationNetworking, where the port says `false`).
    public var httpShouldUsePipelining: Bool {
        get { state.withLock { $0.mirrored.httpShouldUsePipelining } ?? Self.untouched.httpShouldUsePipelining }
        set { state.withLock { $0.mirrored.httpShouldUsePipelining = newValue } }
    }

    /// The network service type of requests. Copied to requests once set; until then it reads back
    /// `URLRequest`'s default (`.default`).
    public var networkServiceType: URLRequest.NetworkServiceType {
        get { state.withLock { $0.mirrored.networkServiceType } ?? Self.untouched.networkServiceType }
        set { state.withLock { $0.mirrored.networkServiceType = newValue } }
    }

    /// The idle timeout of requests in seconds. Copied to requests once set (and then the more restrictive
    /// of it and the session's `timeoutIntervalForRequest` applies); until then it reads back `URLRequest`'s
    /// default (60).
    public var timeoutInterval: TimeInterval {
        get { state.withLock { $0.mirrored.timeoutInterval } ?? Self.untouched.timeoutInterval }
        set { state.withLock { $0.mirrored.timeoutInterval = newValue } }
    }
}
