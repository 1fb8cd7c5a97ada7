// URLRequest+Policies.swift
//
// The cache-policy and network-service-type enums. As in FoundationNetworking they are declared on
// `NSURLRequest` (`NSURLRequest.CachePolicy`, `NSURLRequest.NetworkServiceType`) and aliased on
// `URLRequest`, with the same cases and raw values, so code may spell them either way. They stay enums
// (not structs with static members) because user code switches over them.

import Foundation

extension NSURLRequest {
    // MARK: Cache policy

    /// How a request interacts with the URL cache (FoundationNetworking's cases and raw values).
    public enum CachePolicy: UInt, Sendable {
        /// Use the caching logic defined by the protocol; the default policy.
        case useProtocolCachePolicy
        /// Load from the origin server, ignoring any local cache data.
        case reloadIgnoringLocalCacheData
        /// Ignore local cache data and ask intermediaries to ignore theirs as far as the protocol allows.
        case reloadIgnoringLocalAndRemoteCacheData
        /// Use cached data whatever its age; load from the origin only when nothing is cached.
        case returnCacheDataElseLoad
        /// Use cached data whatever its age; fail when nothing is cached ("offline" mode).
        case returnCacheDataDontLoad
        /// Use cached data only after the origin confirmed it is still valid.
        case reloadRevalidatingCacheData

        /// Older name for `reloadIgnoringLocalCacheData`.
        public static var reloadIgnoringCacheData: CachePolicy { .reloadIgnoringLocalCacheData }
    }

    // MARK: Network service type

    /// The kind of traffic a request carries (FoundationNetworking's cases and raw values).
    public enum NetworkServiceType: UInt, Sendable {
        /// Standard internet traffic.
        case `default`
        /// Voice over IP control traffic.
        case voip
        /// Video traffic.
        case video
        /// Background traffic.
        case background
        /// Voice data.
        case voice
        /// Call signalling.
        case networkServiceTypeCallSignaling
    }
}

extension URLRequest {
    /// How a request interacts with the URL cache (`NSURLRequest.CachePolicy`).
    public typealias CachePolicy = NSURLRequest.CachePolicy

    /// The kind of traffic a request carries (`NSURLRequest.NetworkServiceType`).
    public typealias NetworkServiceType = NSURLRequest.NetworkServiceType
}
