// DiskCacheFilesTests.swift
//
// DiskCacheFiles: writing an entry (temporary file renamed into place, unique names, modification time set
// to the storage time, mode 0600), recognising entry names, and directory creation failures.

import Foundation
import Testing
import TestSupport
@testable import FWURLSession

@Suite struct DiskCacheFilesTests {
    let stem = String(repeating: "ab", count: 32)

    @Test func writingLeavesOneEntryFileDatedWhenStored() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storedDate = CacheFixtures.date(0.5)
        let name = try #require(DiskCacheFiles.write(Data("x".utf8), stem: stem, storedDate: storedDate,
                                                     in: directory.url))
        #expect(directory.fileNames == [name])
        let file = try #require(DiskCacheFiles.entryFile(named: name, in: directory.url))
        #expect(file.stem == stem)
        #expect(file.size == 1)
        #expect(abs(file.storedDate.timeIntervalSince(storedDate)) < 0.001)
        let path = directory.url.appendingPathComponent(name).path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try DiskCacheFiles.read(name, in: directory.url) == Data("x".utf8))
    }

    @Test func everyWriteHasItsOwnName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let names = (0..<20).compactMap { _ in
            DiskCacheFiles.write(Data(), stem: stem, storedDate: CacheFixtures.epoch, in: directory.url)
        }
        #expect(Set(names).count == 20)
        #expect(directory.entryFiles.count == 20)
    }

    @Test func writingIntoAMissingDirectoryFailsCleanly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.url.appendingPathComponent("missing")
        #expect(DiskCacheFiles.write(Data("x".utf8), stem: stem, storedDate: CacheFixtures.epoch, in: missing) == nil)
        #expect(directory.fileNames.isEmpty)
    }

    @Test(arguments: [
        "0123.0123456789abcdef.fwcache",
        "\(String(repeating: "ab", count: 32)).0123456789abcdef.tmp",
        "\(String(repeating: "AB", count: 32)).0123456789abcdef.fwcache",
        "\(String(repeating: "ab", count: 32)).0123456789abcde.fwcache",
        "\(String(repeating: "ab", count: 32)).fwcache",
        "notes.txt",
    ])
    func otherNamesAreNotEntries(_ name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("x".utf8).write(to: directory.url.appendingPathComponent(name))
        #expect(DiskCacheFiles.entryFile(named: name, in: directory.url) == nil)
    }

    @Test func aDirectoryIsNotAnEntryEvenWithAnEntryName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let name = "\(stem).0123456789abcdef.fwcache"
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent(name),
                                                withIntermediateDirectories: false)
        #expect(DiskCacheFiles.entryFile(named: name, in: directory.url) == nil)
    }

    @Test func makingADirectoryCreatesParentsAndFailsOverAFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(DiskCacheFiles.makeDirectory(directory.url.appendingPathComponent("a/b/c")))
        let file = directory.url.appendingPathComponent("file")
        try Data().write(to: file)
        #expect(!DiskCacheFiles.makeDirectory(file))
        #expect(!DiskCacheFiles.makeDirectory(file.appendingPathComponent("below")))
    }

    @Test func removingMissingFilesIsNoError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let name = try #require(DiskCacheFiles.write(Data(), stem: stem, storedDate: CacheFixtures.epoch,
                                                     in: directory.url))
        DiskCacheFiles.remove([name, "missing.fwcache"], in: directory.url)
        #expect(directory.fileNames.isEmpty)
    }
}
