// URLSessionConfiguration+Coding: archiving a configuration (NSSecureCoding, as on Apple platforms), so
// that a session manager can archive the configuration of its session. Every property is encoded under
// its own name through the public accessors; the decoding initializer is in the class body (a required
// initializer must be), and it calls `decodeProperties(from:)` here.
//
// The two dictionaries (`connectionProxyDictionary`, `httpAdditionalHeaders`) are archived as property
// lists: a dictionary holding anything else (a value that is no string, number, date, data, array or
// dictionary) is left out of the archive. The trust roots are archived as the DER of their certificates
// and whether the system's anchors are trusted too. `backgroundSessionDirectory` (an FWNetworking
// addition) is archived as its absolute path; an archive whose path is not absolute does not decode. The
// other FWNetworking additions are archived as their values — `httpResponseLimits` whole (so
// `httpRefusesDeviations` too), the TLS versions, session resumption and the OCSP and SCT requests,
// `httpPipeliningDepth`, `hostsConnectionsOnDelegateQueue`, `busyPollInterval` — except
// `tlsRevocationListFetching` and `tlsCertificateTransparencyPolicy` (their documentation says so). The stores
// (`httpCookieStorage`, `urlCredentialStorage`, `urlCache`) and `protocolClasses` are objects of this process,
// not settings: they are not archived, and a decoded configuration has the defaults of `.default`.

import Foundation
import FWTLS

// MARK: - NSSecureCoding

extension URLSessionConfiguration: NSSecureCoding {
    /// True: a configuration decodes only the types it encoded.
    public static var supportsSecureCoding: Bool { true }

    private enum Key {
        static let identifier = "identifier"
        static let requestCachePolicy = "requestCachePolicy"
        static let timeoutIntervalForRequest = "timeoutIntervalForRequest"
        static let timeoutIntervalForResource = "timeoutIntervalForResource"
        static let networkServiceType = "networkServiceType"
        static let allowsCellularAccess = "allowsCellularAccess"
        static let allowsExpensiveNetworkAccess = "allowsExpensiveNetworkAccess"
        static let allowsConstrainedNetworkAccess = "allowsConstrainedNetworkAccess"
        static let waitsForConnectivity = "waitsForConnectivity"
        static let isDiscretionary = "isDiscretionary"
        static let sharedContainerIdentifier = "sharedContainerIdentifier"
        static let sessionSendsLaunchEvents = "sessionSendsLaunchEvents"
        static let connectionProxyDictionary = "connectionProxyDictionary"
        static let httpShouldUsePipelining = "httpShouldUsePipelining"
        static let httpShouldSetCookies = "httpShouldSetCookies"
        static let httpCookieAcceptPolicy = "httpCookieAcceptPolicy"
        static let httpMaximumConnectionsPerHost = "httpMaximumConnectionsPerHost"
        static let httpAdditionalHeaders = "httpAdditionalHeaders"
        static let shouldUseExtendedBackgroundIdleMode = "shouldUseExtendedBackgroundIdleMode"
        static let httpResponseLimits = "httpResponseLimits"
        static let tlsMinimumSupportedProtocolVersion = "tlsMinimumSupportedProtocolVersion"
        static let tlsMaximumSupportedProtocolVersion = "tlsMaximumSupportedProtocolVersion"
        static let tlsTrustRootCertificates = "tlsTrustRootCertificates"
        static let tlsTrustRootsIncludeSystem = "tlsTrustRootsIncludeSystem"
        static let tlsSessionResumption = "tlsSessionResumption"
        static let backgroundSessionDirectory = "backgroundSessionDirectory"
        static let httpPipeliningDepth = "httpPipeliningDepth"
        static let hostsConnectionsOnDelegateQueue = "hostsConnectionsOnDelegateQueue"
        static let busyPollInterval = "busyPollInterval"
        static let tlsRequestsOCSPStapling = "tlsRequestsOCSPStapling"
        static let tlsRequestsSignedCertificateTimestamps = "tlsRequestsSignedCertificateTimestamps"
    }

    private typealias Dictionary = [AnyHashable: Any]

    /// The flags, by key, with the property each one is.
    private static var flags: [(String, ReferenceWritableKeyPath<URLSessionConfiguration, Bool>)] { [
        (Key.allowsCellularAccess, \.allowsCellularAccess),
        (Key.allowsExpensiveNetworkAccess, \.allowsExpensiveNetworkAccess),
        (Key.allowsConstrainedNetworkAccess, \.allowsConstrainedNetworkAccess),
        (Key.waitsForConnectivity, \.waitsForConnectivity),
        (Key.isDiscretionary, \.isDiscretionary),
        (Key.sessionSendsLaunchEvents, \.sessionSendsLaunchEvents),
        (Key.httpShouldUsePipelining, \.httpShouldUsePipelining),
        (Key.httpShouldSetCookies, \.httpShouldSetCookies),
        (Key.shouldUseExtendedBackgroundIdleMode, \.shouldUseExtendedBackgroundIdleMode),
        (Key.tlsSessionResumption, \.tlsSessionResumption),
        (Key.hostsConnectionsOnDelegateQueue, \.hostsConnectionsOnDelegateQueue),
        (Key.tlsRequestsOCSPStapling, \.tlsRequestsOCSPStapling),
        (Key.tlsRequestsSignedCertificateTimestamps, \.tlsRequestsSignedCertificateTimestamps),
    ] }

    /// The optional strings, by key.
    private static var strings: [(String, ReferenceWritableKeyPath<URLSessionConfiguration, String?>)] { [
        (Key.identifier, \.identifier),
        (Key.sharedContainerIdentifier, \.sharedContainerIdentifier),
    ] }

    /// The two dictionaries, by key.
    private static var dictionaries: [(String, ReferenceWritableKeyPath<URLSessionConfiguration, Dictionary?>)] { [
        (Key.connectionProxyDictionary, \.connectionProxyDictionary),
        (Key.httpAdditionalHeaders, \.httpAdditionalHeaders),
    ] }

    // MARK: Encoding

    /// Encodes every property (see the file's opening comment for the dictionaries and trust roots).
    public func encode(with coder: NSCoder) {
        for (key, path) in Self.flags { coder.encode(self[keyPath: path], forKey: key) }
        for (key, path) in Self.strings {
            if let value = self[keyPath: path] { coder.encode(value as NSString, forKey: key) }
        }
        for (key, path) in Self.dictionaries {
            guard let data = self[keyPath: path].flatMap(Self.propertyListData) else { continue }
            coder.encode(data as NSData, forKey: key)
        }
        coder.encode(Int(requestCachePolicy.rawValue), forKey: Key.requestCachePolicy)
        coder.encode(Int(networkServiceType.rawValue), forKey: Key.networkServiceType)
        coder.encode(Int(httpCookieAcceptPolicy.rawValue), forKey: Key.httpCookieAcceptPolicy)
        coder.encode(timeoutIntervalForRequest, forKey: Key.timeoutIntervalForRequest)
        coder.encode(timeoutIntervalForResource, forKey: Key.timeoutIntervalForResource)
        coder.encode(httpMaximumConnectionsPerHost, forKey: Key.httpMaximumConnectionsPerHost)
        coder.encode(httpPipeliningDepth, forKey: Key.httpPipeliningDepth)
        coder.encode(busyPollInterval, forKey: Key.busyPollInterval)
        coder.encode(Self.limitValues(httpResponseLimits).map { NSNumber(value: $0) } as NSArray,
                     forKey: Key.httpResponseLimits)
        coder.encode(Int(tlsMinimumSupportedProtocolVersion.rawValue), forKey: Key.tlsMinimumSupportedProtocolVersion)
        coder.encode(Int(tlsMaximumSupportedProtocolVersion.rawValue), forKey: Key.tlsMaximumSupportedProtocolVersion)
        let roots = tlsTrustRoots
        let anchors = roots.certificates.map { Data($0.derBytes) as NSData }
        coder.encode(anchors as NSArray, forKey: Key.tlsTrustRootCertificates)
        coder.encode(roots.includesSystemRoots, forKey: Key.tlsTrustRootsIncludeSystem)
        if let directory = backgroundSessionDirectory {
            coder.encode(directory.path as NSString, forKey: Key.backgroundSessionDirectory)
        }
    }

    // MARK: Decoding

    /// Sets every property the archive holds; false when one of them is unusable.
    func decodeProperties(from coder: NSCoder) -> Bool {
        for (key, path) in Self.flags where coder.containsValue(forKey: key) {
            self[keyPath: path] = coder.decodeBool(forKey: key)
        }
        for (key, path) in Self.strings where coder.containsValue(forKey: key) {
            guard let value = coder.decodeObject(of: NSString.self, forKey: key) else { return false }
            self[keyPath: path] = value as String
        }
        for (key, path) in Self.dictionaries where coder.containsValue(forKey: key) {
            guard let data = coder.decodeObject(of: NSData.self, forKey: key),
                  let dictionary = try? PropertyListSerialization.propertyList(from: data as Data, format: nil)
                      as? [AnyHashable: Any] else { return false }
            self[keyPath: path] = dictionary
        }
        if coder.containsValue(forKey: Key.backgroundSessionDirectory) {
            guard let path = coder.decodeObject(of: NSString.self, forKey: Key.backgroundSessionDirectory) as String?,
                  path.hasPrefix("/") else { return false }
            backgroundSessionDirectory = URL(fileURLWithPath: path, isDirectory: true)
        }
        return decodeNumbers(from: coder) && decodeTLS(from: coder)
    }

    private func decodeNumbers(from coder: NSCoder) -> Bool {
        if coder.containsValue(forKey: Key.requestCachePolicy) {
            let raw = UInt(clamping: coder.decodeInteger(forKey: Key.requestCachePolicy))
            guard let policy = URLRequest.CachePolicy(rawValue: raw) else { return false }
            requestCachePolicy = policy
        }
        if coder.containsValue(forKey: Key.networkServiceType) {
            let raw = UInt(clamping: coder.decodeInteger(forKey: Key.networkServiceType))
            guard let type = URLRequest.NetworkServiceType(rawValue: raw) else { return false }
            networkServiceType = type
        }
        if coder.containsValue(forKey: Key.httpCookieAcceptPolicy) {
            let raw = UInt(clamping: coder.decodeInteger(forKey: Key.httpCookieAcceptPolicy))
            guard let policy = HTTPCookie.AcceptPolicy(rawValue: raw) else { return false }
            httpCookieAcceptPolicy = policy
        }
        if coder.containsValue(forKey: Key.timeoutIntervalForRequest) {
            timeoutIntervalForRequest = coder.decodeDouble(forKey: Key.timeoutIntervalForRequest)
        }
        if coder.containsValue(forKey: Key.timeoutIntervalForResource) {
            timeoutIntervalForResource = coder.decodeDouble(forKey: Key.timeoutIntervalForResource)
        }
        if coder.containsValue(forKey: Key.httpMaximumConnectionsPerHost) {
            httpMaximumConnectionsPerHost = coder.decodeInteger(forKey: Key.httpMaximumConnectionsPerHost)
        }
        if coder.containsValue(forKey: Key.httpPipeliningDepth) {
            httpPipeliningDepth = coder.decodeInteger(forKey: Key.httpPipeliningDepth)
        }
        if coder.containsValue(forKey: Key.busyPollInterval) {
            busyPollInterval = coder.decodeDouble(forKey: Key.busyPollInterval)
        }
        if coder.containsValue(forKey: Key.httpResponseLimits) {
            let numbers = coder.decodeObject(of: [NSArray.self, NSNumber.self], forKey: Key.httpResponseLimits)
            guard let values = (numbers as? [NSNumber])?.map(\.intValue),
                  let limits = Self.limits(values) else { return false }
            httpResponseLimits = limits
        }
        return true
    }

    private func decodeTLS(from coder: NSCoder) -> Bool {
        let versions: [(String, ReferenceWritableKeyPath<URLSessionConfiguration, tls_protocol_version_t>)] = [
            (Key.tlsMinimumSupportedProtocolVersion, \.tlsMinimumSupportedProtocolVersion),
            (Key.tlsMaximumSupportedProtocolVersion, \.tlsMaximumSupportedProtocolVersion),
        ]
        for (key, path) in versions where coder.containsValue(forKey: key) {
            guard let raw = UInt16(exactly: coder.decodeInteger(forKey: key)),
                  let version = tls_protocol_version_t(rawValue: raw) else { return false }
            self[keyPath: path] = version
        }
        guard coder.containsValue(forKey: Key.tlsTrustRootCertificates) else { return true }
        let array = coder.decodeObject(of: [NSArray.self, NSData.self], forKey: Key.tlsTrustRootCertificates)
        guard let ders = array as? [Data],
              let certificates = try? ders.map({ der throws(TLSError) in try Certificate(derBytes: Array(der)) })
        else { return false }
        let includesSystem = coder.decodeBool(forKey: Key.tlsTrustRootsIncludeSystem)
        tlsTrustRoots = certificates.isEmpty && includesSystem
            ? .system : .certificates(certificates, includingSystemRoots: includesSystem)
        return true
    }

    // MARK: Values

    /// `dictionary` as a binary property list; nil when it holds anything a property list cannot.
    private static func propertyListData(_ dictionary: [AnyHashable: Any]) -> Data? {
        let plist = NSDictionary(dictionary: dictionary)
        guard PropertyListSerialization.propertyList(plist, isValidFor: .binary) else { return nil }
        return try? PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    /// The limits, in a fixed order: the parser's six, then (since the collected-body and decompression limits
    /// and the refused deviations joined them) those four.
    private static func limitValues(_ limits: HTTPLimits) -> [Int] {
        [limits.maxLineLength, limits.maxHeadSize, limits.maxHeaderCount, limits.maxChunkSizeDigits,
         limits.maxChunkExtensionLength, limits.maxTrailerSize, limits.maxInterimResponses,
         Int(limits.maxCollectedBodySize), limits.maxDecompressionRatio, Int(limits.refusedDeviations.rawValue)]
    }

    /// The limits `limitValues` listed; nil for a list of another length, with a negative value or with an
    /// unknown deviation. An archive made before the last four were archived (six values) leaves them at
    /// their defaults.
    private static func limits(_ values: [Int]) -> HTTPLimits? {
        guard values.count == 6 || values.count == 10, values.allSatisfy({ $0 >= 0 }) else { return nil }
        var limits = HTTPLimits()
        limits.maxLineLength = values[0]
        limits.maxHeadSize = values[1]
        limits.maxHeaderCount = values[2]
        limits.maxChunkSizeDigits = values[3]
        limits.maxChunkExtensionLength = values[4]
        limits.maxTrailerSize = values[5]
        guard values.count == 10 else { return limits }
        guard let deviations = UInt16(exactly: values[9]).map(HTTPDeviations.init(rawValue:)),
              HTTPDeviations.all.isSuperset(of: deviations) else { return nil }
        limits.maxInterimResponses = values[6]
        limits.maxCollectedBodySize = Int64(values[7])
        limits.maxDecompressionRatio = values[8]
        limits.refusedDeviations = deviations
        return limits
    }
}
