// URLSessionConfiguration+Storage.swift
//
// Every property of a `URLSessionConfiguration` in one value, with FoundationNetworking's defaults: the
// configuration keeps it behind one lock (URLSessionConfiguration.swift), and `ephemeral` and
// `background(withIdentifier:)` change a few fields of it. A session's own copy keeps it in a `Frozen` box,
// read without the lock.

import Foundation
import FWTLS
import FWTransport

extension URLSessionConfiguration {
    /// Every property of a configuration, with FoundationNetworking's defaults.
    struct Storage {
        var identifier: String?
        var requestCachePolicy = URLRequest.CachePolicy.useProtocolCachePolicy
        var timeoutIntervalForRequest: TimeInterval = 60
        var timeoutIntervalForResource: TimeInterval = 604_800
        var networkServiceType = URLRequest.NetworkServiceType.default
        var allowsCellularAccess = true
        var allowsExpensiveNetworkAccess = true
        var allowsConstrainedNetworkAccess = true
        var waitsForConnectivity = false
        var isDiscretionary = false
        var sharedContainerIdentifier: String?
        var sessionSendsLaunchEvents = true
        var connectionProxyDictionary: [AnyHashable: Any]?
        var httpShouldUsePipelining = false
        var httpPipeliningDepth = 4
        var hostsConnectionsOnDelegateQueue = true
        var busyPollInterval: TimeInterval = 0.000_2
        var httpShouldSetCookies = true
        var httpMaximumConnectionsPerHost = 6
        var httpAdditionalHeaders: [AnyHashable: Any]?
        var shouldUseExtendedBackgroundIdleMode = false
        var backgroundSessionDirectory: URL?
        var httpResponseLimits = HTTPLimits()
        var tlsMinimumSupportedProtocolVersion = tls_protocol_version_t.TLSv12
        var tlsMaximumSupportedProtocolVersion = tls_protocol_version_t.TLSv13
        var tlsTrustRoots = TrustRoots.system
        var tlsSessionResumption = true
        var tlsRequestsOCSPStapling = false
        var tlsRequestsSignedCertificateTimestamps = false
        var tlsCertificateTransparencyPolicy = CertificateTransparencyPolicy()
        var tlsRevocationListFetching: RevocationListFetching?
        // Cookies and credentials (their MARK block in URLSessionConfiguration.swift).
        var httpCookieStorage: HTTPCookieStorage? = .shared
        var httpCookieAcceptPolicy = HTTPCookie.AcceptPolicy.onlyFromMainDocumentDomain
        var urlCredentialStorage: URLCredentialStorage? = .shared
        // Caching (its MARK block in URLSessionConfiguration.swift).
        var urlCache: URLCache? = URLCache.shared
        // URL protocols (their MARK block in URLSessionConfiguration.swift).
        var protocolClasses: [AnyClass]? = []
    }

    /// A frozen configuration's properties: a box, so that a read does not copy the whole value.
    final class Frozen: @unchecked Sendable { // storage is a constant
        let storage: Storage

        init(_ storage: Storage) {
            self.storage = storage
        }
    }
}
