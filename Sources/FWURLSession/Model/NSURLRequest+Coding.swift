// NSURLRequest+Coding.swift
//
// What `NSURLRequest`'s NSSecureCoding writes: every property of the request under a key of its own
// (URLs as strings; header fields as [name, reported key, value] triples, so their order and spelling
// survive), except what cannot be archived: the body stream and the protocol properties.

import Foundation

extension URLRequest {
    /// The archive keys.
    private enum ArchiveKey: String {
        case url = "FWURLRequest.url"
        case mainDocumentURL = "FWURLRequest.mainDocumentURL"
        case cachePolicy = "FWURLRequest.cachePolicy"
        case timeoutInterval = "FWURLRequest.timeoutInterval"
        case timeoutIntervalIsSet = "FWURLRequest.timeoutIntervalIsSet"
        case method = "FWURLRequest.method"
        case headerFields = "FWURLRequest.headerFields"
        case body = "FWURLRequest.body"
        case networkServiceType = "FWURLRequest.networkServiceType"
        case flags = "FWURLRequest.flags"
    }

    /// The Boolean properties, in the order of the archived `flags` array.
    private static var flagKeyPaths: [WritableKeyPath<URLRequest, Bool>] {
        [\.allowsCellularAccess, \.allowsExpensiveNetworkAccess, \.allowsConstrainedNetworkAccess,
         \.httpShouldHandleCookies, \.httpShouldUsePipelining]
    }

    /// Writes the request to a keyed `coder`.
    func encode(with coder: NSCoder) {
        coder.encode(url?.absoluteString, forKey: ArchiveKey.url.rawValue)
        coder.encode(mainDocumentURL?.absoluteString, forKey: ArchiveKey.mainDocumentURL.rawValue)
        coder.encode(Int64(cachePolicy.rawValue), forKey: ArchiveKey.cachePolicy.rawValue)
        coder.encode(timeoutInterval, forKey: ArchiveKey.timeoutInterval.rawValue)
        coder.encode(isTimeoutIntervalSet, forKey: ArchiveKey.timeoutIntervalIsSet.rawValue)
        coder.encode(httpMethod, forKey: ArchiveKey.method.rawValue)
        coder.encode(headerFields.map { $0.map { [$0.name, $0.key, $0.value] } },
                     forKey: ArchiveKey.headerFields.rawValue)
        coder.encode(httpBody, forKey: ArchiveKey.body.rawValue)
        coder.encode(Int64(networkServiceType.rawValue), forKey: ArchiveKey.networkServiceType.rawValue)
        coder.encode(Self.flagKeyPaths.map { self[keyPath: $0] }, forKey: ArchiveKey.flags.rawValue)
    }

    /// Reads a request `encode(with:)` wrote; nil when `coder` is not keyed or a value has the wrong type.
    static func decoded(from coder: NSCoder) -> URLRequest? {
        guard coder.allowsKeyedCoding,
              let cachePolicy = CachePolicy(rawValue: UInt(clamping: coder.decodeInt64(
                forKey: ArchiveKey.cachePolicy.rawValue))),
              let serviceType = NetworkServiceType(rawValue: UInt(clamping: coder.decodeInt64(
                forKey: ArchiveKey.networkServiceType.rawValue))),
              let flags = coder.decodeObject(of: [NSArray.self, NSNumber.self], forKey: ArchiveKey.flags.rawValue)
                as? [Bool], flags.count == Self.flagKeyPaths.count
        else { return nil }
        let url = decodeURL(coder, .url)
        let timeout = coder.decodeDouble(forKey: ArchiveKey.timeoutInterval.rawValue)
        var request = URLRequest(url: url ?? URL(fileURLWithPath: "/"), cachePolicy: cachePolicy,
                                 timeoutInterval: timeout)
        request.url = url
        // Assigned again only when it was assigned: that takes precedence over the session's timeout.
        if coder.decodeBool(forKey: ArchiveKey.timeoutIntervalIsSet.rawValue) { request.timeoutInterval = timeout }
        request.mainDocumentURL = decodeURL(coder, .mainDocumentURL)
        request.httpMethod = coder.decodeObject(of: NSString.self, forKey: ArchiveKey.method.rawValue) as String?
        let fields = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: ArchiveKey.headerFields.rawValue)
        request.headerFields = (fields as? [[String]])?.compactMap { triple in
            triple.count == 3 ? HeaderField(name: triple[0], key: triple[1], value: triple[2]) : nil
        }
        request.httpBody = coder.decodeObject(of: NSData.self, forKey: ArchiveKey.body.rawValue) as Data?
        request.networkServiceType = serviceType
        for (keyPath, value) in zip(flagKeyPaths, flags) { request[keyPath: keyPath] = value }
        return request
    }

    private static func decodeURL(_ coder: NSCoder, _ key: ArchiveKey) -> URL? {
        (coder.decodeObject(of: NSString.self, forKey: key.rawValue) as String?).flatMap { URL(string: $0) }
    }
}
