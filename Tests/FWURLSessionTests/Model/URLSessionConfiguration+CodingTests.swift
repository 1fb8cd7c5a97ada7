import Foundation
import FWURLSession
import Testing
import TestSupport

// URLSessionConfiguration's NSSecureCoding: every property survives a secure keyed archive, defaults
// stay defaults, and an archive with an unusable value decodes to nil.
@Suite struct URLSessionConfigurationCodingTests {
    private static func roundTrip(_ configuration: URLSessionConfiguration) throws -> URLSessionConfiguration? {
        let archive = try NSKeyedArchiver.archivedData(withRootObject: configuration, requiringSecureCoding: true)
        return try NSKeyedUnarchiver.unarchivedObject(ofClass: URLSessionConfiguration.self, from: archive)
    }

    /// A configuration with every property away from its default.
    private static func changed() throws -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.identifier = "fw.test"
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 12.5
        configuration.timeoutIntervalForResource = 99
        configuration.networkServiceType = .background
        configuration.allowsCellularAccess = false
        configuration.allowsExpensiveNetworkAccess = false
        configuration.allowsConstrainedNetworkAccess = false
        configuration.waitsForConnectivity = true
        configuration.isDiscretionary = true
        configuration.sharedContainerIdentifier = "group.fw"
        configuration.sessionSendsLaunchEvents = false
        configuration.connectionProxyDictionary = ["HTTPEnable": 1, "HTTPProxy": "proxy.test", "HTTPPort": 3128]
        configuration.httpShouldUsePipelining = true
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpMaximumConnectionsPerHost = 3
        configuration.httpPipeliningDepth = 7
        configuration.hostsConnectionsOnDelegateQueue = false
        configuration.busyPollInterval = 0.000_25
        configuration.httpAdditionalHeaders = ["X-Token": "abc", "Accept-Language": "fr"]
        configuration.shouldUseExtendedBackgroundIdleMode = true
        var limits = HTTPLimits()
        limits.maxHeaderCount = 17
        limits.maxTrailerSize = 1234
        limits.maxInterimResponses = 3
        limits.maxCollectedBodySize = 5_000_000
        limits.maxDecompressionRatio = 7
        limits.refusedDeviations = [.obsFold, .bareLF]
        configuration.httpResponseLimits = limits
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv13
        configuration.tlsMaximumSupportedProtocolVersion = .TLSv13
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(root, includingSystemRoots: true)
        configuration.tlsSessionResumption = false
        configuration.tlsRequestsOCSPStapling = true
        configuration.tlsRequestsSignedCertificateTimestamps = true
        configuration.backgroundSessionDirectory = URL(fileURLWithPath: "/var/tmp/fw journal/dir", isDirectory: true)
        return configuration
    }

    @Test func everyPropertySurvivesArchiving() throws {
        let original = try Self.changed()
        let decoded = try #require(try Self.roundTrip(original))
        #expect(decoded.identifier == "fw.test")
        #expect(decoded.requestCachePolicy == .reloadIgnoringLocalCacheData)
        #expect(decoded.timeoutIntervalForRequest == 12.5)
        #expect(decoded.timeoutIntervalForResource == 99)
        #expect(decoded.networkServiceType == .background)
        #expect(!decoded.allowsCellularAccess && !decoded.allowsExpensiveNetworkAccess)
        #expect(!decoded.allowsConstrainedNetworkAccess)
        #expect(decoded.waitsForConnectivity && decoded.isDiscretionary)
        #expect(decoded.sharedContainerIdentifier == "group.fw")
        #expect(!decoded.sessionSendsLaunchEvents)
        #expect(decoded.connectionProxyDictionary?["HTTPProxy"] as? String == "proxy.test")
        #expect(decoded.connectionProxyDictionary?["HTTPPort"] as? Int == 3128)
        #expect(decoded.httpShouldUsePipelining && !decoded.httpShouldSetCookies)
        #expect(decoded.httpCookieAcceptPolicy == .never)
        #expect(decoded.httpMaximumConnectionsPerHost == 3)
        #expect(decoded.httpPipeliningDepth == 7)
        #expect(!decoded.hostsConnectionsOnDelegateQueue)
        #expect(decoded.busyPollInterval == 0.000_25)
        #expect(decoded.httpAdditionalHeaders?["X-Token"] as? String == "abc")
        #expect(decoded.httpAdditionalHeaders?["Accept-Language"] as? String == "fr")
        #expect(decoded.shouldUseExtendedBackgroundIdleMode)
        #expect(decoded.httpResponseLimits == original.httpResponseLimits)
        #expect(decoded.httpResponseLimits.maxCollectedBodySize == 5_000_000)
        #expect(decoded.httpResponseLimits.maxDecompressionRatio == 7)
        #expect(decoded.httpResponseLimits.refusedDeviations == [.obsFold, .bareLF])
        #expect(decoded.tlsRequestsOCSPStapling && decoded.tlsRequestsSignedCertificateTimestamps)
        #expect(decoded.tlsMinimumSupportedProtocolVersion == .TLSv13)
        #expect(decoded.tlsMaximumSupportedProtocolVersion == .TLSv13)
        let anchors = decoded.tlsTrustRoots.certificates.map(\.derBytes)
        #expect(anchors == original.tlsTrustRoots.certificates.map(\.derBytes))
        #expect(decoded.tlsTrustRoots.includesSystemRoots)
        #expect(!decoded.tlsSessionResumption)
        #expect(decoded.backgroundSessionDirectory?.path == "/var/tmp/fw journal/dir")
    }

    @Test func theDefaultsStayDefaults() throws {
        let decoded = try #require(try Self.roundTrip(.default))
        let fresh = URLSessionConfiguration.default
        #expect(decoded.identifier == nil && decoded.httpAdditionalHeaders == nil)
        #expect(decoded.connectionProxyDictionary == nil)
        #expect(decoded.timeoutIntervalForRequest == fresh.timeoutIntervalForRequest)
        #expect(decoded.timeoutIntervalForResource == fresh.timeoutIntervalForResource)
        #expect(decoded.httpMaximumConnectionsPerHost == fresh.httpMaximumConnectionsPerHost)
        #expect(decoded.httpResponseLimits == fresh.httpResponseLimits)
        #expect(decoded.tlsTrustRoots.includesSystemRoots && decoded.tlsTrustRoots.certificates.isEmpty)
        #expect(decoded.tlsSessionResumption && decoded.httpShouldSetCookies)
        #expect(decoded.backgroundSessionDirectory == nil)
        #expect(decoded.httpPipeliningDepth == fresh.httpPipeliningDepth)
        #expect(decoded.hostsConnectionsOnDelegateQueue)
        #expect(decoded.busyPollInterval == fresh.busyPollInterval)
        #expect(!decoded.tlsRequestsOCSPStapling && !decoded.tlsRequestsSignedCertificateTimestamps)
    }

    @Test func aDictionaryThatIsNoPropertyListIsLeftOut() throws {
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-Object": NSObject()]
        let decoded = try #require(try Self.roundTrip(configuration))
        #expect(decoded.httpAdditionalHeaders == nil)
    }

    @Test(arguments: ["requestCachePolicy", "networkServiceType", "tlsMinimumSupportedProtocolVersion",
                      "backgroundSessionDirectory"])
    func anUnknownRawValueDecodesToNil(_ key: String) throws {
        // A configuration's archive with one value replaced by one no enum case has.
        #expect(try Self.unarchive(ForgedConfiguration(key: key)) == nil)
        #expect(try Self.roundTrip(.default) != nil)
    }

    /// An archive made when only the parser's six limits were archived keeps the other four at their defaults.
    @Test func sixArchivedLimitsLeaveTheOthersAtTheirDefaults() throws {
        let decoded = try Self.unarchive(ForgedConfiguration(key: "httpResponseLimits",
                                                             numbers: [100, 200, 30, 4, 50, 60]))
        let limits = try #require(decoded).httpResponseLimits
        #expect(limits.maxLineLength == 100 && limits.maxHeaderCount == 30 && limits.maxTrailerSize == 60)
        let defaults = HTTPLimits()
        #expect(limits.maxCollectedBodySize == defaults.maxCollectedBodySize)
        #expect(limits.maxDecompressionRatio == defaults.maxDecompressionRatio)
        #expect(limits.refusedDeviations == defaults.refusedDeviations)
    }

    /// The forged archives decode when their values are usable, so those that do not fail for their values.
    @Test func aForgedArchiveOfUsableValuesDecodes() throws {
        #expect(try Self.unarchive(ForgedConfiguration(key: "noKeyOfAConfiguration")) != nil)
        #expect(try Self.unarchive(ForgedConfiguration(key: "httpResponseLimits",
                                                       numbers: [1, 2, 3, 4, 5, 6, 7, 8, 9, 1 << 6])) != nil)
    }

    @Test(arguments: [[1, 2, 3, 4, 5, 6, 7, 8, 9, 1 << 15], [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, -6]])
    func unusableLimitsDecodeToNil(_ numbers: [Int]) throws {
        #expect(try Self.unarchive(ForgedConfiguration(key: "httpResponseLimits", numbers: numbers)) == nil)
    }

    /// Decodes `forged`'s archive as a configuration.
    private static func unarchive(_ forged: ForgedConfiguration) throws -> URLSessionConfiguration? {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(forged, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        return unarchiver.decodeObject(of: URLSessionConfiguration.self, forKey: NSKeyedArchiveRootObjectKey)
    }
}

/// Archives like a configuration with one raw value no case has, or as one list of numbers alone.
final class ForgedConfiguration: NSObject, NSSecureCoding, @unchecked Sendable { // `key`, `numbers`: lets
    static var supportsSecureCoding: Bool { true }
    let key: String
    let numbers: [Int]?

    init(key: String, numbers: [Int]? = nil) {
        self.key = key
        self.numbers = numbers
    }

    required init?(coder: NSCoder) {
        nil
    }

    /// Archived as a configuration, which the unarchiver then decodes.
    override var classForKeyedArchiver: AnyClass? {
        URLSessionConfiguration.self
    }

    /// A list of numbers is the archive's only value (every key a configuration's archive lacks decodes to its
    /// default): an object encoded twice under one key does not decode.
    func encode(with coder: NSCoder) {
        if let numbers {
            coder.encode(numbers.map { NSNumber(value: $0) } as NSArray, forKey: key)
        } else {
            URLSessionConfiguration.default.encode(with: coder)
            coder.encode(9_999, forKey: key)
        }
    }
}
