import Foundation
import FWNetworking
import Testing
import TestSupport

// Archiving and copying a manager: the configuration (with the kind of its cookie, credential and cache
// stores), the response serializer and the security policy travel; the blocks never do; the copy or
// decoded manager has a session of its own that works.

@Suite struct URLSessionManagerCodingTests {
    /// A manager with settings away from the defaults, and a block.
    static func configured() throws -> URLSessionManager {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 3
        configuration.httpAdditionalHeaders = ["X-Manager": "archived"]
        // The limits a session enforces travel with the manager too.
        configuration.httpResponseLimits.maxCollectedBodySize = 1 << 20
        configuration.httpResponseLimits.maxDecompressionRatio = 20
        let manager = URLSessionManager(sessionConfiguration: configuration)
        let serializer = JSONResponseSerializer()
        serializer.removesKeysWithNullValues = true
        serializer.acceptableStatusCodes = IndexSet([200, 201])
        manager.responseSerializer = serializer
        let policy = SecurityPolicy(pinningMode: .certificate,
                                    pinnedCertificates: try ManagerTests.der(["valid-ecdsa.pem"]))
        policy.validatesDomainName = false
        manager.securityPolicy = policy
        manager.taskDidComplete = { _, _, _ in }
        return manager
    }

    static func expectSameSettings(_ copy: URLSessionManager, as original: URLSessionManager) throws {
        #expect(copy !== original && copy.session !== original.session)
        #expect(copy.session.delegate === copy)
        #expect(copy.session.configuration.httpMaximumConnectionsPerHost == 3)
        #expect(copy.session.configuration.httpAdditionalHeaders?["X-Manager"] as? String == "archived")
        #expect(copy.session.configuration.httpResponseLimits.maxCollectedBodySize == 1 << 20)
        #expect(copy.session.configuration.httpResponseLimits.maxDecompressionRatio == 20)
        let serializer = try #require(copy.responseSerializer as? JSONResponseSerializer)
        #expect(serializer !== original.responseSerializer)
        #expect(serializer.removesKeysWithNullValues && serializer.acceptableStatusCodes == IndexSet([200, 201]))
        #expect(copy.securityPolicy !== original.securityPolicy)
        #expect(copy.securityPolicy.pinningMode == .certificate && !copy.securityPolicy.validatesDomainName)
        #expect(copy.securityPolicy.pinnedCertificates == original.securityPolicy.pinnedCertificates)
        #expect(copy.taskDidComplete == nil, "blocks are never copied or archived")
    }

    @Test func aCopyHasTheSettingsAndNoBlocks() throws {
        let original = try Self.configured()
        defer { original.invalidateSessionCancelingTasks(true, resetSession: false) }
        let copy = try #require(original.copy() as? URLSessionManager)
        defer { copy.invalidateSessionCancelingTasks(true, resetSession: false) }
        try Self.expectSameSettings(copy, as: original)
    }

    @Test func aCopyOfASubclassIsOfTheSubclass() {
        let original = RecordingManager(sessionConfiguration: nil)
        #expect(original.copy() is RecordingManager)
    }

    @Test func anArchivedManagerDecodesWithItsSettingsAndWorks() throws {
        let original = try Self.configured()
        defer { original.invalidateSessionCancelingTasks(true, resetSession: false) }
        let archive = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let unarchived = try NSKeyedUnarchiver.unarchivedObject(ofClass: URLSessionManager.self, from: archive)
        let decoded = try #require(unarchived)
        defer { decoded.invalidateSessionCancelingTasks(true, resetSession: false) }
        try Self.expectSameSettings(decoded, as: original)
        let server = try ManagerTests.server()
        defer { server.stop() }
        decoded.completionQueue = ManagerTests.completionQueue
        let result = try #require(ManagerTests.load(decoded, ManagerTests.request(server, "/json")))
        #expect((result.object as? [String: Any])?.keys.sorted() == ["list", "name"], "nulls removed")
    }

    @Test func anArchiveWithoutAConfigurationDecodesToNil() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(SecurityPolicy.default, forKey: "securityPolicy")
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        #expect(URLSessionManager(coder: unarchiver) == nil)
    }

    /// `manager` archived and decoded.
    static func roundTrip(_ manager: URLSessionManager) throws -> URLSessionManager {
        let archive = try NSKeyedArchiver.archivedData(withRootObject: manager, requiringSecureCoding: true)
        return try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: URLSessionManager.self, from: archive))
    }

    @Test func anEphemeralManagerComesBackWithStoresOfItsOwn() throws {
        let original = URLSessionManager(sessionConfiguration: .ephemeral)
        defer { original.invalidateSessionCancelingTasks(true, resetSession: false) }
        let decoded = try Self.roundTrip(original)
        let configuration = decoded.session.configuration
        defer { decoded.invalidateSessionCancelingTasks(true, resetSession: false) }
        let cookies = try #require(configuration.httpCookieStorage)
        let credentials = try #require(configuration.urlCredentialStorage)
        let cache = try #require(configuration.urlCache)
        #expect(cookies !== HTTPCookieStorage.shared && credentials !== URLCredentialStorage.shared)
        #expect(cache !== URLCache.shared)
        #expect(cookies !== original.session.configuration.httpCookieStorage, "a new store, not the original's")
        #expect(cookies.cookies?.isEmpty ?? true)
    }

    @Test func aDefaultManagerKeepsTheSharedStoresAndNoneStaysNone() throws {
        let shared = try Self.roundTrip(URLSessionManager(sessionConfiguration: .default))
        defer { shared.invalidateSessionCancelingTasks(true, resetSession: false) }
        let sharedConfiguration = shared.session.configuration
        #expect(sharedConfiguration.httpCookieStorage === HTTPCookieStorage.shared)
        #expect(sharedConfiguration.urlCredentialStorage === URLCredentialStorage.shared)
        #expect(sharedConfiguration.urlCache === URLCache.shared)
        let bare = URLSessionConfiguration.default
        bare.httpCookieStorage = nil
        bare.urlCredentialStorage = nil
        bare.urlCache = nil
        let none = try Self.roundTrip(URLSessionManager(sessionConfiguration: bare))
        defer { none.invalidateSessionCancelingTasks(true, resetSession: false) }
        let noneConfiguration = none.session.configuration
        #expect(noneConfiguration.httpCookieStorage == nil && noneConfiguration.urlCredentialStorage == nil)
        #expect(noneConfiguration.urlCache == nil)
    }
}
