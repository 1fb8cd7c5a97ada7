// URLSessionConfigurationTests.swift
//
// URLSessionConfiguration: FoundationNetworking's defaults, fresh instances, copies that are independent
// of the original, and thread-safe access.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct URLSessionConfigurationTests {
    // MARK: Defaults

    func expectDefaults(_ configuration: URLSessionConfiguration) {
        #expect(configuration.identifier == nil)
        #expect(configuration.requestCachePolicy == .useProtocolCachePolicy)
        #expect(configuration.timeoutIntervalForRequest == 60)
        #expect(configuration.timeoutIntervalForResource == 604_800)
        #expect(configuration.networkServiceType == .default)
        #expect(configuration.allowsCellularAccess)
        #expect(configuration.allowsExpensiveNetworkAccess)
        #expect(configuration.allowsConstrainedNetworkAccess)
        #expect(!configuration.waitsForConnectivity)
        #expect(!configuration.isDiscretionary)
        #expect(configuration.sharedContainerIdentifier == nil)
        #expect(configuration.sessionSendsLaunchEvents)
        #expect(configuration.connectionProxyDictionary == nil)
        #expect(!configuration.httpShouldUsePipelining)
        #expect(configuration.httpShouldSetCookies)
        #expect(configuration.httpMaximumConnectionsPerHost == 6)
        #expect(configuration.httpAdditionalHeaders == nil)
        #expect(!configuration.shouldUseExtendedBackgroundIdleMode)
        #expect(configuration.httpCookieAcceptPolicy == .onlyFromMainDocumentDomain)
    }

    @Test func defaultHasFoundationNetworkingDefaults() {
        expectDefaults(.default)
        #expect(URLSessionConfiguration.default.httpCookieStorage === HTTPCookieStorage.shared)
        #expect(URLSessionConfiguration.default.urlCredentialStorage === URLCredentialStorage.shared)
    }

    @Test func ephemeralHasFoundationNetworkingDefaults() {
        expectDefaults(.ephemeral)
    }

    @Test func ephemeralHasItsOwnInMemoryStorages() throws {
        let first = URLSessionConfiguration.ephemeral
        let second = URLSessionConfiguration.ephemeral
        let cookies = try #require(first.httpCookieStorage)
        let credentials = try #require(first.urlCredentialStorage)
        #expect(cookies !== HTTPCookieStorage.shared && cookies !== second.httpCookieStorage)
        #expect(credentials !== URLCredentialStorage.shared && credentials !== second.urlCredentialStorage)
        #expect(cookies.file == nil)
        #expect(credentials.file == nil)
    }

    @available(*, deprecated, message: "exercises the deprecated initialiser")
    @Test func deprecatedInitialiserHasTheDefaults() {
        expectDefaults(URLSessionConfiguration())
    }

    @Test func eachAccessReturnsANewInstance() {
        let first = URLSessionConfiguration.default
        first.httpMaximumConnectionsPerHost = 1
        #expect(URLSessionConfiguration.default !== first)
        #expect(URLSessionConfiguration.default.httpMaximumConnectionsPerHost == 6)
        #expect(URLSessionConfiguration.ephemeral !== URLSessionConfiguration.ephemeral)
    }

    // MARK: Copying

    /// Changes every property away from its default.
    func customise(_ configuration: URLSessionConfiguration) {
        configuration.identifier = "id"
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 1
        configuration.timeoutIntervalForResource = 2
        configuration.networkServiceType = .background
        configuration.allowsCellularAccess = false
        configuration.allowsExpensiveNetworkAccess = false
        configuration.allowsConstrainedNetworkAccess = false
        configuration.waitsForConnectivity = true
        configuration.isDiscretionary = true
        configuration.sharedContainerIdentifier = "group"
        configuration.sessionSendsLaunchEvents = false
        configuration.connectionProxyDictionary = ["HTTPEnable": 1]
        configuration.httpShouldUsePipelining = true
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = 2
        configuration.httpAdditionalHeaders = ["User-Agent": "test"]
        configuration.shouldUseExtendedBackgroundIdleMode = true
        configuration.httpCookieStorage = Self.cookieStorage
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCredentialStorage = Self.credentialStorage
    }

    static let cookieStorage = HTTPCookieStorage.ephemeral()
    static let credentialStorage = URLCredentialStorage()

    func expectCustomised(_ configuration: URLSessionConfiguration) {
        #expect(configuration.identifier == "id")
        #expect(configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        #expect(configuration.timeoutIntervalForRequest == 1)
        #expect(configuration.timeoutIntervalForResource == 2)
        #expect(configuration.networkServiceType == .background)
        #expect(!configuration.allowsCellularAccess)
        #expect(!configuration.allowsExpensiveNetworkAccess)
        #expect(!configuration.allowsConstrainedNetworkAccess)
        #expect(configuration.waitsForConnectivity)
        #expect(configuration.isDiscretionary)
        #expect(configuration.sharedContainerIdentifier == "group")
        #expect(!configuration.sessionSendsLaunchEvents)
        #expect(configuration.connectionProxyDictionary?["HTTPEnable"] as? Int == 1)
        #expect(configuration.httpShouldUsePipelining)
        #expect(!configuration.httpShouldSetCookies)
        #expect(configuration.httpMaximumConnectionsPerHost == 2)
        #expect(configuration.httpAdditionalHeaders?["User-Agent"] as? String == "test")
        #expect(configuration.shouldUseExtendedBackgroundIdleMode)
        #expect(configuration.httpCookieStorage === Self.cookieStorage)
        #expect(configuration.httpCookieAcceptPolicy == .never)
        #expect(configuration.urlCredentialStorage === Self.credentialStorage)
    }

    @Test func theStoragesMayBeNil() throws {
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = nil
        configuration.urlCredentialStorage = nil
        let copy = try #require(configuration.copy() as? URLSessionConfiguration)
        #expect(copy.httpCookieStorage == nil)
        #expect(copy.urlCredentialStorage == nil)
    }

    @Test func copyCopiesEveryProperty() throws {
        let original = URLSessionConfiguration.default
        customise(original)
        let copy = try #require(original.copy() as? URLSessionConfiguration)
        #expect(copy !== original)
        expectCustomised(copy)
        let zoneCopy = try #require(original.copy(with: nil) as? URLSessionConfiguration)
        expectCustomised(zoneCopy)
    }

    @Test func copyIsIndependentOfTheOriginal() throws {
        let original = URLSessionConfiguration.default
        let copy = try #require(original.copy() as? URLSessionConfiguration)
        customise(original)
        expectDefaults(copy)
        expectCustomised(original)

        let second = try #require(original.copy() as? URLSessionConfiguration)
        second.httpAdditionalHeaders = ["User-Agent": "other"]
        #expect(original.httpAdditionalHeaders?["User-Agent"] as? String == "test")
    }

    // Issue 23 (stage C): a session keeps a frozen copy of its configuration, read without a lock; what it
    // hands out is an ordinary copy, which takes changes that do not reach the session.
    @Test func aSessionsOwnCopyHasEveryPropertyAndHandsOutChangeableCopies() throws {
        let original = URLSessionConfiguration.default
        customise(original)
        let own = original.sessionCopy()
        #expect(own !== original)
        expectCustomised(own)
        let ordinary = try #require(own.copy() as? URLSessionConfiguration)
        ordinary.timeoutIntervalForRequest = 9
        #expect(ordinary.timeoutIntervalForRequest == 9 && own.timeoutIntervalForRequest == 1)

        let plain = URLSessionConfiguration.default
        plain.timeoutIntervalForRequest = 5
        let session = URLSession(configuration: plain)
        defer { session.invalidateAndCancel() }
        let handedOut = session.configuration
        handedOut.timeoutIntervalForRequest = 1
        #expect(session.configuration.timeoutIntervalForRequest == 5)
        #expect(session.sessionConfiguration.timeoutIntervalForRequest == 5)
    }

    // MARK: Thread safety

    @Test func concurrentWritesAndReadsAreSafe() async {
        let configuration = URLSessionConfiguration.default
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for step in 0..<500 {
                        configuration.httpMaximumConnectionsPerHost = worker * 1000 + step
                        configuration.httpAdditionalHeaders = ["X-Worker": worker]
                        _ = configuration.copy()
                    }
                }
            }
        }
        #expect((0..<4).map { $0 * 1000 + 499 }.contains(configuration.httpMaximumConnectionsPerHost))
        #expect(configuration.httpAdditionalHeaders?["X-Worker"] is Int)
    }

    // MARK: Caching

    @Test func defaultUsesTheSharedCache() {
        #expect(URLSessionConfiguration.default.urlCache === URLCache.shared)
    }

    @Test func ephemeralUsesANewMemoryOnlyCache() throws {
        let cache = try #require(URLSessionConfiguration.ephemeral.urlCache)
        #expect(cache !== URLCache.shared)
        #expect(cache.disk.directory == nil)
        #expect(cache.memoryCapacity == 4 * 1024 * 1024)
        #expect(URLSessionConfiguration.ephemeral.urlCache !== cache)
    }

    @Test func cacheAndCachePolicySurviveACopyAndStayIndependent() throws {
        let original = URLSessionConfiguration.default
        let cache = URLCache.makeEphemeral()
        original.urlCache = cache
        original.requestCachePolicy = .returnCacheDataDontLoad
        let copy = try #require(original.copy() as? URLSessionConfiguration)
        #expect(copy.urlCache === cache)
        #expect(copy.requestCachePolicy == .returnCacheDataDontLoad)
        copy.urlCache = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        #expect(original.urlCache === cache)
        #expect(original.requestCachePolicy == .returnCacheDataDontLoad)
        #expect(copy.urlCache == nil)
    }
}
