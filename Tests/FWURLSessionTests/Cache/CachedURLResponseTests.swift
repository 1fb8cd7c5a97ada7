// CachedURLResponseTests.swift
//
// CachedURLResponse: FoundationNetworking's initialisers and defaults, copying (the receiver), equality
// and hash (response, data, storage policy; not user info), and the stamp the cache puts on a stored
// response (exchange times kept or defaulted, Vary values recorded).

import Foundation
import Testing
@testable import FWURLSession

@Suite struct CachedURLResponseTests {
    let response = CacheFixtures.response([("Vary", "Accept")])

    @Test func theShortInitialiserAllowsEveryStorage() {
        let cached = CachedURLResponse(response: response, data: Data("x".utf8))
        #expect(cached.response === response)
        #expect(cached.data == Data("x".utf8))
        #expect(cached.userInfo == nil)
        #expect(cached.storagePolicy == .allowed)
        #expect(cached.cacheInfo == nil)
    }

    @Test func theFullInitialiserKeepsUserInfoAndPolicy() {
        let cached = CachedURLResponse(response: response, data: Data(), userInfo: ["k": "v"],
                                       storagePolicy: .allowedInMemoryOnly)
        #expect(cached.userInfo?["k"] as? String == "v")
        #expect(cached.storagePolicy == .allowedInMemoryOnly)
        let defaulted = CachedURLResponse(response: response, data: Data(), storagePolicy: .notAllowed)
        #expect(defaulted.userInfo == nil)
        #expect(defaulted.storagePolicy == .notAllowed)
    }

    @Test func storagePolicyHasFoundationNetworkingsRawValues() {
        #expect(URLCache.StoragePolicy.allowed.rawValue == 0)
        #expect(URLCache.StoragePolicy.allowedInMemoryOnly.rawValue == 1)
        #expect(URLCache.StoragePolicy.notAllowed.rawValue == 2)
    }

    @Test func copyingReturnsTheReceiver() {
        let cached = CachedURLResponse(response: response, data: Data())
        #expect(cached.copy() as AnyObject === cached)
        #expect(cached.copy(with: nil) as AnyObject === cached)
    }

    @Test func equalityComparesResponseDataAndPolicyButNotUserInfo() {
        let base = CachedURLResponse(response: response, data: Data("x".utf8), userInfo: ["a": 1],
                                     storagePolicy: .allowed)
        let sameButUserInfo = CachedURLResponse(response: CacheFixtures.response(), data: Data("x".utf8),
                                                userInfo: ["b": 2], storagePolicy: .allowed)
        #expect(base == sameButUserInfo)
        #expect(base.hash == sameButUserInfo.hash)
        #expect(base != CachedURLResponse(response: response, data: Data("y".utf8)))
        #expect(base != CachedURLResponse(response: response, data: Data("x".utf8), storagePolicy: .notAllowed))
        let otherURL = CacheFixtures.response("https://example.com/other")
        #expect(base != CachedURLResponse(response: otherURL, data: Data("x".utf8)))
        #expect(!base.isEqual("not a cached response"))
    }

    @Test func stampingRecordsStorageTimeAndVaryValues() {
        let request = CacheFixtures.request([("Accept", "text/html")])
        let stamped = CachedURLResponse(response: response, data: Data())
            .stamped(storedAt: CacheFixtures.epoch, for: request)
        #expect(stamped.cacheInfo == CacheEntryInfo(
            requestDate: CacheFixtures.epoch, responseDate: CacheFixtures.epoch, storedDate: CacheFixtures.epoch,
            varyingFields: [VaryingField(name: "accept", value: "text/html")]))
    }

    @Test func stampingKeepsTheExchangeTimes() {
        let proposal = CachedURLResponse(response: response, data: Data(), userInfo: nil, storagePolicy: .allowed,
                                         cacheInfo: CacheEntryInfo(requestDate: CacheFixtures.date(-2),
                                                                   responseDate: CacheFixtures.date(-1)))
        let stamped = proposal.stamped(storedAt: CacheFixtures.epoch, for: CacheFixtures.request())
        #expect(stamped.cacheInfo?.requestDate == CacheFixtures.date(-2))
        #expect(stamped.cacheInfo?.responseDate == CacheFixtures.date(-1))
        #expect(stamped.cacheInfo?.storedDate == CacheFixtures.epoch)
        #expect(stamped == proposal)
    }
}
