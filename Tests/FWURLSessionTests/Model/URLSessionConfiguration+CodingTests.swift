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
        configuration.httpAdditionalHeaders = ["X-Token": "abc", "Accept-Language": "fr"]
        configuration.shouldUseExtendedBackgroundIdleMode = true
        var limits = HTTPLimits()
        limits.maxHeaderCount = 17
        limits.maxTrailerSize = 1234
        configuration.httpResponseLimits = limits
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv13
        configuration.tlsMaximumSupportedProtocolVersion = .TLSv13
        let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(root, includingSystemRoots: true)
        configuration.tlsSessionResumption = false
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
        #expect(decoded.httpAdditionalHeaders?["X-Token"] as? String == "abc")
        #expect(decoded.httpAdditionalHeaders?["Accept-Language"] as? String == "fr")
        #expect(decoded.shouldUseExtendedBackgroundIdleMode)
        #expect(decoded.httpResponseLimits == original.httpResponseLimits)
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
        let forged = NSKeyedArchiver(requiringSecureCoding: true)
        forged.setClassName("FWForgedConfiguration", for: ForgedConfiguration.self)
        forged.encode(ForgedConfiguration(key: key), forKey: NSKeyedArchiveRootObjectKey)
        forged.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: forged.encodedData)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        unarchiver.setClass(URLSessionConfiguration.self, forClassName: "FWForgedConfiguration")
        let decoded = unarchiver.decodeObject(of: URLSessionConfiguration.self, forKey: NSKeyedArchiveRootObjectKey)
        #expect(decoded == nil)
        #expect(try Self.roundTrip(.default) != nil)
    }
}

/// Archives like a configuration, with one raw value no case has.
final class ForgedConfiguration: NSObject, NSSecureCoding, @unchecked Sendable { // `key` is a let
    static var supportsSecureCoding: Bool { true }
    let key: String

    init(key: String) {
        self.key = key
    }

    required init?(coder: NSCoder) {
        nil
    }

    func encode(with coder: NSCoder) {
        URLSessionConfiguration.default.encode(with: coder)
        coder.encode(9_999, forKey: key)
    }
}
