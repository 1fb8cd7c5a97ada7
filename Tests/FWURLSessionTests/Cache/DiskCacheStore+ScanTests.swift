// DiskCacheStore+ScanTests.swift
//
// Reopening a disk cache directory: entries survive, the order of storage becomes the recency order, the
// capacity applies to what was found, leftovers of interrupted writes go, duplicates keep the newest,
// foreign files stay.

import Foundation
import Testing
import TestSupport
@testable import FWURLSession

@Suite struct DiskCacheStoreScanTests {
    func key(_ name: String) -> CacheKey {
        CacheKey(url: URL(string: "https://example.com/\(name)")!)
    }

    func entry(_ name: String, storedAt offset: TimeInterval) -> CachedURLResponse {
        CacheFixtures.cached(CacheFixtures.response("https://example.com/\(name)"),
                             data: Data(repeating: 0x62, count: 100), responseOffset: offset)
    }

    @Test func entriesSurviveAndStorageOrderIsRecencyOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = DiskCacheStore(directory: directory.url, capacity: 100_000)
        for (offset, name) in ["b", "a", "c"].enumerated() {
            first.store(entry(name, storedAt: TimeInterval(offset)), for: key(name))
        }
        let usage = first.usage
        let scanned = DiskCacheStore.scan(directory.url, capacity: 100_000)
        #expect(scanned.records.keysFromOldest == ["b", "a", "c"].map { key($0).fileStem })
        #expect(scanned.records.totalCost == usage)
        #expect(scanned.obsolete.isEmpty)
        let second = DiskCacheStore(directory: directory.url, capacity: 100_000)
        #expect(second.usage == usage)
        #expect(second.response(for: key("a")) == entry("a", storedAt: 1))
    }

    @Test func theCapacityAppliesToWhatWasFound() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = DiskCacheStore(directory: directory.url, capacity: 100_000)
        for (offset, name) in ["a", "b", "c"].enumerated() {
            first.store(entry(name, storedAt: TimeInterval(offset)), for: key(name))
        }
        let oneEntry = first.usage / 3
        let second = DiskCacheStore(directory: directory.url, capacity: oneEntry)
        #expect(second.usage == oneEntry)
        #expect(directory.entryFiles.count == 1)
        #expect(second.response(for: key("c")) != nil)
    }

    @Test func leftoversGoDuplicatesKeepTheNewestForeignFilesStay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stem = key("a").fileStem
        let older = try #require(DiskCacheFiles.write(
            DiskCacheEntryCodec.encode(entry("a", storedAt: 0), key: key("a")), stem: stem,
            storedDate: CacheFixtures.date(0), in: directory.url))
        let newer = try #require(DiskCacheFiles.write(
            DiskCacheEntryCodec.encode(entry("a", storedAt: 5), key: key("a")), stem: stem,
            storedDate: CacheFixtures.date(5), in: directory.url))
        try Data("partial".utf8).write(to: directory.url.appendingPathComponent("\(stem).00000000000000ff.tmp"))
        try Data("mine".utf8).write(to: directory.url.appendingPathComponent("README"))
        let store = DiskCacheStore(directory: directory.url, capacity: 100_000)
        #expect(store.response(for: key("a"))?.cacheInfo?.storedDate == CacheFixtures.date(5))
        #expect(directory.fileNames == ["README", newer].sorted())
        #expect(!directory.fileNames.contains(older))
    }
}
