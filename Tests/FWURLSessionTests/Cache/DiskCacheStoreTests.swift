// DiskCacheStoreTests.swift
//
// DiskCacheStore: opening on first use, byte accounting in file sizes, least-recently-used eviction with
// file deletion, replacement, entries larger than the capacity, damaged or vanished files (a miss, and the
// entry removed), removal by storage time, and a directory that cannot be created.

import Foundation
import Testing
import TestSupport
@testable import FWURLSession

@Suite struct DiskCacheStoreTests {
    func key(_ name: String) -> CacheKey {
        CacheKey(url: URL(string: "https://example.com/\(name)")!)
    }

    func entry(_ name: String, bytes: Int = 100, storedAt offset: TimeInterval = 0) -> CachedURLResponse {
        CacheFixtures.cached(CacheFixtures.response("https://example.com/\(name)"),
                             data: Data(repeating: 0x61, count: bytes), responseOffset: offset)
    }

    func fileSize(_ name: String, bytes: Int = 100) -> Int {
        DiskCacheEntryCodec.encode(entry(name, bytes: bytes), key: key(name)).count
    }

    @Test func nothingTouchesTheDiskBeforeFirstUse() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let location = directory.url.appendingPathComponent("cache")
        let store = DiskCacheStore(directory: location, capacity: 1000)
        #expect(!FileManager.default.fileExists(atPath: location.path))
        #expect(store.capacity == 1000)
        #expect(store.usage == 0)
        #expect(FileManager.default.fileExists(atPath: location.path))
    }

    @Test func aStoredEntryReadsBackAndItsFileIsCounted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DiskCacheStore(directory: directory.url, capacity: 100_000)
        store.store(entry("a"), for: key("a"))
        let read = try #require(store.response(for: key("a")))
        #expect(read == entry("a"))
        #expect(read.cacheInfo?.storedDate == CacheFixtures.epoch)
        #expect(store.usage == fileSize("a"))
        #expect(directory.entryFiles.count == 1)
        #expect(store.response(for: key("b")) == nil)
    }

    @Test func replacingAnEntryDeletesTheOldFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DiskCacheStore(directory: directory.url, capacity: 100_000)
        store.store(entry("a", bytes: 10), for: key("a"))
        store.store(entry("a", bytes: 20), for: key("a"))
        #expect(directory.entryFiles.count == 1)
        #expect(store.usage == fileSize("a", bytes: 20))
        #expect(store.response(for: key("a"))?.data.count == 20)
    }

    @Test func theLeastRecentlyUsedEntryIsEvictedAndDeleted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DiskCacheStore(directory: directory.url, capacity: 3 * fileSize("a"))
        for name in ["a", "b", "c"] {
            store.store(entry(name), for: key(name))
        }
        _ = store.response(for: key("a"))
        store.touch(key("b"))
        store.store(entry("d"), for: key("d"))
        #expect(store.response(for: key("c")) == nil)
        #expect(["a", "b", "d"].allSatisfy { store.response(for: key($0)) != nil })
        #expect(directory.entryFiles.count == 3)
        #expect(store.usage == 3 * fileSize("a"))
    }

    @Test func anEntryLargerThanTheCapacityIsNotStoredAndDropsTheOldOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DiskCacheStore(directory: directory.url, capacity: fileSize("a", bytes: 100))
        store.store(entry("a", bytes: 100), for: key("a"))
        store.store(entry("a", bytes: 101), for: key("a"))
        #expect(store.response(for: key("a")) == nil)
        #expect(directory.entryFiles.isEmpty)
        #expect(store.usage == 0)
    }

    @Test func shrinkingTheCapacityEvictsAndDeletesAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DiskCacheStore(directory: directory.url, capacity: 100_000)
        for name in ["a", "b", "c"] {
            store.store(entry(name), for: key(name))
        }
        store.capacity = fileSize("c")
        #expect(directory.entryFiles.count == 1)
        #expect(store.response(for: key("c")) != nil)
        store.capacity = 0
        #expect(directory.entryFiles.isEmpty)
        #expect(store.usage == 0)
    }

    @Test(arguments: ["truncate", "flip", "garbage", "delete", "other version"])
    func aDamagedOrVanishedFileIsAMissAndTheEntryGoes(_ damage: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DiskCacheStore(directory: directory.url, capacity: 100_000)
        store.store(entry("a"), for: key("a"))
        store.store(entry("b"), for: key("b"))
        let name = try #require(directory.entryFiles.first { $0.hasPrefix(key("a").fileStem) })
        try Self.damage(directory.url.appendingPathComponent(name), as: damage)
        #expect(store.response(for: key("a")) == nil)
        #expect(!directory.entryFiles.contains(name))
        #expect(store.usage == fileSize("b"))
        #expect(store.response(for: key("b")) != nil)
    }

    @Test func removalByStorageTimeIncludesTheBoundary() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DiskCacheStore(directory: directory.url, capacity: 100_000)
        store.store(entry("old", storedAt: -10), for: key("old"))
        store.store(entry("now", storedAt: 0), for: key("now"))
        store.store(entry("new", storedAt: 10), for: key("new"))
        store.removeResponses(storedSince: CacheFixtures.epoch)
        #expect(store.response(for: key("old")) != nil)
        #expect(store.response(for: key("now")) == nil)
        #expect(store.response(for: key("new")) == nil)
        #expect(directory.entryFiles.count == 1)
        store.removeResponse(for: key("old"))
        #expect(directory.entryFiles.isEmpty)
    }

    @Test func aDirectoryThatCannotBeCreatedStoresNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("file")
        try Data().write(to: file)
        let store = DiskCacheStore(directory: file.appendingPathComponent("cache"), capacity: 100_000)
        store.store(entry("a"), for: key("a"))
        #expect(store.response(for: key("a")) == nil)
        #expect(store.usage == 0)
        let none = DiskCacheStore(directory: nil, capacity: 5)
        none.store(entry("a"), for: key("a"))
        #expect(none.response(for: key("a")) == nil)
        #expect(none.capacity == 5)
    }

    /// Damages the file at `url`.
    static func damage(_ url: URL, as damage: String) throws {
        var contents = try Data(contentsOf: url)
        switch damage {
        case "truncate": contents = contents.prefix(contents.count / 2)
        case "flip": contents[contents.count / 2] ^= 0x20
        case "garbage": contents = Data(repeating: 0x5A, count: contents.count)
        case "other version": contents[5] = 9
        default:
            try FileManager.default.removeItem(at: url)
            return
        }
        try contents.write(to: url)
    }
}
