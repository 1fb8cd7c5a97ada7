// URLCacheTests.swift
//
// URLCache: FoundationNetworking's API over the two tiers — GET-only keys, storage policies, removal,
// capacities and usage, promotion from disk to memory — persistence across a simulated restart (a new
// cache on the same directory), damaged entries (a miss and removed, never a wrong body), the data-task
// variants, and a concurrency smoke test with a bounded wait (run it under ThreadSanitizer too).

import Foundation
import Testing
@testable import FWURLSession
import TestSupport

@Suite struct URLCacheTests {
    func request(_ name: String, method: String = "GET") -> URLRequest {
        CacheFixtures.request("https://example.com/\(name)", method: method)
    }

    func cached(_ name: String, bytes: Int = 100, policy: URLCache.StoragePolicy = .allowed) -> CachedURLResponse {
        CachedURLResponse(response: CacheFixtures.response("https://example.com/\(name)"),
                          data: Data(repeating: 0x63, count: bytes), userInfo: nil, storagePolicy: policy)
    }

    func cache(_ directory: TemporaryDirectory?, memory: Int = 1_000_000, disk: Int = 1_000_000,
               clock: ManualCacheClock = ManualCacheClock()) -> URLCache {
        URLCache(memoryCapacity: memory, diskCapacity: disk, diskDirectory: directory?.url, clock: clock.clock)
    }

    // MARK: Storing and looking up

    @Test func aStoredResponseIsFoundByItsRequest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sut = cache(directory)
        sut.storeCachedResponse(cached("a"), for: request("a"))
        let hit = try #require(sut.cachedResponse(for: request("a")))
        #expect(hit == cached("a"))
        #expect(hit.cacheInfo?.storedDate == CacheFixtures.epoch)
        #expect(sut.cachedResponse(for: request("b")) == nil)
        var withFragment = request("a")
        withFragment.url = URL(string: "https://example.com/a#top")
        #expect(sut.cachedResponse(for: withFragment) != nil)
        #expect(sut.cachedResponse(for: CacheFixtures.request("https://example.com/a?q=1")) == nil)
    }

    @Test(arguments: ["POST", "HEAD", "PUT"])
    func onlyGETResponsesAreStoredAndFound(method: String) throws {
        let sut = cache(nil)
        sut.storeCachedResponse(cached("a"), for: request("a", method: method))
        #expect(sut.cachedResponse(for: request("a")) == nil)
        sut.storeCachedResponse(cached("a"), for: request("a"))
        #expect(sut.cachedResponse(for: request("a", method: method)) == nil)
    }

    @Test func storagePoliciesChooseTheTiers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sut = cache(directory)
        sut.storeCachedResponse(cached("all", policy: .allowed), for: request("all"))
        sut.storeCachedResponse(cached("memory", policy: .allowedInMemoryOnly), for: request("memory"))
        sut.storeCachedResponse(cached("none", policy: .notAllowed), for: request("none"))
        #expect(sut.memory.response(for: CacheKey(storableRequest: request("all"))!) != nil)
        #expect(sut.disk.response(for: CacheKey(storableRequest: request("all"))!) != nil)
        #expect(sut.memory.response(for: CacheKey(storableRequest: request("memory"))!) != nil)
        #expect(sut.disk.response(for: CacheKey(storableRequest: request("memory"))!) == nil)
        #expect(sut.cachedResponse(for: request("none")) == nil)
        #expect(directory.entryFiles.count == 1)
        sut.storeCachedResponse(cached("all", policy: .allowedInMemoryOnly), for: request("all"))
        #expect(directory.entryFiles.isEmpty)
    }

    @Test func aDiskHitIsCopiedToMemory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sut = cache(directory)
        sut.storeCachedResponse(cached("a"), for: request("a"))
        sut.memory.removeResponses(storedSince: .distantPast)
        #expect(sut.currentMemoryUsage == 0)
        #expect(sut.cachedResponse(for: request("a")) == cached("a"))
        #expect(sut.currentMemoryUsage > 0)
    }

    @Test func theVaryValuesOfTheStoringRequestAreRecorded() throws {
        let sut = cache(nil)
        let response = CacheFixtures.response([("Vary", "Accept-Language")])
        let storing = CacheFixtures.request([("Accept-Language", "fr")])
        sut.storeCachedResponse(CachedURLResponse(response: response, data: Data()), for: storing)
        let hit = try #require(sut.cachedResponse(for: CacheFixtures.request()))
        #expect(hit.cacheInfo?.varyingFields == [VaryingField(name: "accept-language", value: "fr")])
    }

    // MARK: Removal

    @Test func removalGoesByURLWhateverTheMethod() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sut = cache(directory)
        sut.storeCachedResponse(cached("a"), for: request("a"))
        sut.removeCachedResponse(for: request("a", method: "POST"))
        #expect(sut.cachedResponse(for: request("a")) == nil)
        #expect(directory.entryFiles.isEmpty)
        #expect(sut.currentMemoryUsage == 0)
        #expect(sut.currentDiskUsage == 0)
    }

    @Test func removeAllEmptiesBothTiers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sut = cache(directory)
        for name in ["a", "b", "c"] {
            sut.storeCachedResponse(cached(name), for: request(name))
        }
        sut.removeAllCachedResponses()
        #expect(["a", "b", "c"].allSatisfy { sut.cachedResponse(for: request($0)) == nil })
        #expect(sut.currentMemoryUsage == 0)
        #expect(sut.currentDiskUsage == 0)
        #expect(directory.entryFiles.isEmpty)
    }

    @Test func removalSinceADateTakesWhatWasStoredFromThen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualCacheClock()
        let sut = cache(directory, clock: clock)
        sut.storeCachedResponse(cached("old"), for: request("old"))
        clock.advance(by: 60)
        sut.storeCachedResponse(cached("new"), for: request("new"))
        sut.removeCachedResponses(since: CacheFixtures.date(30))
        #expect(sut.cachedResponse(for: request("old")) != nil)
        #expect(sut.cachedResponse(for: request("new")) == nil)
        #expect(directory.entryFiles.count == 1)
    }

    // MARK: Capacity and usage

    @Test func capacitiesReadBackAndShrinkingEvicts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sut = cache(directory)
        #expect(sut.memoryCapacity == 1_000_000)
        #expect(sut.diskCapacity == 1_000_000)
        for name in ["a", "b", "c"] {
            sut.storeCachedResponse(cached(name), for: request(name))
        }
        let memoryPerEntry = sut.currentMemoryUsage / 3
        let diskPerEntry = sut.currentDiskUsage / 3
        #expect(memoryPerEntry > 100)
        #expect(diskPerEntry > 100)
        sut.memoryCapacity = memoryPerEntry
        #expect(sut.currentMemoryUsage == memoryPerEntry)
        sut.diskCapacity = 2 * diskPerEntry
        #expect(sut.currentDiskUsage == 2 * diskPerEntry)
        #expect(directory.entryFiles.count == 2)
        sut.memoryCapacity = 0
        sut.diskCapacity = 0
        #expect(sut.currentMemoryUsage == 0)
        #expect(sut.currentDiskUsage == 0)
        #expect(sut.cachedResponse(for: request("c")) == nil)
    }

    @Test func aMemoryOnlyCacheKeepsItsDiskCapacityButNoFiles() {
        let sut = cache(nil, disk: 0)
        sut.diskCapacity = 1_000_000
        sut.storeCachedResponse(cached("a"), for: request("a"))
        #expect(sut.diskCapacity == 1_000_000)
        #expect(sut.currentDiskUsage == 0)
        #expect(sut.cachedResponse(for: request("a")) != nil)
    }

    // MARK: Persistence

    @Test func aNewCacheOnTheSameDirectorySeesTheEntries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let before = cache(directory)
        let response = CacheFixtures.response("https://example.com/a", [("Content-Type", "text/plain"),
                                                                        ("ETag", "\"v1\""), ("Vary", "Accept")])
        let stored = CachedURLResponse(response: response, data: Data("persisted".utf8), userInfo: ["n": 1],
                                       storagePolicy: .allowed)
        before.storeCachedResponse(stored, for: CacheFixtures.request([("Accept", "text/plain")]))
        before.storeCachedResponse(cached("memory", policy: .allowedInMemoryOnly), for: request("memory"))
        let usage = before.currentDiskUsage

        let after = cache(directory)
        #expect(after.currentMemoryUsage == 0)
        #expect(after.currentDiskUsage == usage)
        let hit = try #require(after.cachedResponse(for: request("a")))
        let http = try #require(hit.response as? HTTPURLResponse)
        #expect(hit.data == Data("persisted".utf8))
        #expect(http.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(hit.userInfo?["n"] as? Int == 1)
        #expect(hit.cacheInfo?.varyingFields == [VaryingField(name: "accept", value: "text/plain")])
        #expect(hit.cacheInfo?.storedDate == CacheFixtures.epoch)
        #expect(after.cachedResponse(for: request("memory")) == nil)
    }

    @Test(arguments: ["truncate", "flip", "garbage", "other version", "delete"])
    func aDamagedEntryIsAMissAndIsRemoved(_ damage: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        cache(directory).storeCachedResponse(cached("a"), for: request("a"))
        let name = try #require(directory.entryFiles.first)
        try DiskCacheStoreTests.damage(directory.url.appendingPathComponent(name), as: damage)
        let restarted = cache(directory)
        #expect(restarted.cachedResponse(for: request("a")) == nil)
        #expect(directory.entryFiles.isEmpty)
        #expect(restarted.currentDiskUsage == 0)
        restarted.storeCachedResponse(cached("a", bytes: 7), for: request("a"))
        #expect(restarted.cachedResponse(for: request("a"))?.data.count == 7)
    }

    // MARK: Data task variants

    @Test func taskVariantsUseTheTasksCurrentRequest() async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: request("a"))
        let sut = cache(nil)
        sut.storeCachedResponse(cached("a"), for: task)
        #expect(sut.cachedResponse(for: request("a")) == cached("a"))
        let found = LockedBox<CachedURLResponse??>(nil)
        sut.getCachedResponse(for: task) { response in found.withLock { $0 = .some(response) } }
        #expect(waitUntil(timeout: 10) { found.withLock { $0 != nil } })
        #expect(found.withLock { $0 } == .some(cached("a")))
        sut.removeCachedResponse(for: task)
        #expect(sut.cachedResponse(for: request("a")) == nil)
    }

    // MARK: Concurrency

    @Test func manyThreadsStoreReadAndRemoveWithoutAWrongBody() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sut = cache(directory, memory: 16 * 1024, disk: 32 * 1024)
        let wrongBodies = LockedBox(0)
        let group = DispatchGroup()
        for thread in 0..<8 {
            group.enter()
            DispatchQueue.global().async {
                Self.hammer(sut, seed: UInt64(thread), wrongBodies: wrongBodies)
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(wrongBodies.withLock { $0 } == 0)
        #expect(sut.currentMemoryUsage <= 16 * 1024)
        #expect(sut.currentDiskUsage <= 32 * 1024)
        let onDisk = directory.entryFiles.reduce(0) { total, name in
            total + (DiskCacheFiles.entryFile(named: name, in: directory.url)?.size ?? 0)
        }
        #expect(onDisk == sut.currentDiskUsage)
    }

    /// Stores, reads and removes random keys; every body read must be the one its key's responses carry.
    static func hammer(_ cache: URLCache, seed: UInt64, wrongBodies: LockedBox<Int>) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let index = Int.random(in: 0..<24, using: &random)
            let url = "https://example.com/\(index)"
            let request = CacheFixtures.request(url)
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                cache.removeCachedResponse(for: request)
            case 1..<5:
                let body = Data(repeating: UInt8(index), count: 500 + index * 40)
                cache.storeCachedResponse(CachedURLResponse(response: CacheFixtures.response(url), data: body),
                                          for: request)
            default:
                if let hit = cache.cachedResponse(for: request),
                   hit.data != Data(repeating: UInt8(index), count: 500 + index * 40) {
                    wrongBodies.withLock { $0 += 1 }
                }
            }
        }
    }
}
