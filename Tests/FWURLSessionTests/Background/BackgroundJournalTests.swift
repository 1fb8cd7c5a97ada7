import Foundation
@testable import FWURLSession
import Testing
import TestSupport

/// The background journal's record format and crash safety: every truncation of a record (each of its field
/// boundaries included) and seeded random damage is reported, never trusted; an injected write failure
/// leaves the previous record whole; a second owner of a journal directory gets a clear error.
@Suite struct BackgroundJournalTests {
    static func sampleRecord(_ identifier: Int = 7) -> JournalRecord {
        JournalRecord(kind: .download, taskIdentifier: identifier, taskDescription: "model weights",
                      url: URL(string: "http://127.0.0.1:8080/big.bin")!, method: "GET",
                      headerFields: [["Accept", "*/*"], ["X-Token", "a b"]], uploadFilePath: nil,
                      partialFilePath: "/tmp/7-abc.part", bytesWritten: 33_554_432,
                      expectedTotalBytes: 67_108_864, entityTag: "\"v1\"", lastModified: nil)
    }

    @Test func aRecordRoundTrips() throws {
        let record = Self.sampleRecord()
        #expect(try JournalRecord(decoding: record.encoded()) == record)
        #expect(record.validator == "\"v1\"")
        var weak = record
        weak.entityTag = "W/\"v1\""
        weak.lastModified = "Sun, 22 Nov 2026 10:00:00 GMT"
        #expect(weak.validator == "Sun, 22 Nov 2026 10:00:00 GMT")
    }

    @Test func everyTruncationIsReportedAsTruncated() {
        let bytes = Self.sampleRecord().encoded()
        // Every prefix: the field boundaries (magic, version, length, payload, checksum) and all between.
        for length in 0..<bytes.count {
            #expect(throws: JournalRecordError.self) { try JournalRecord(decoding: Array(bytes[0..<length])) }
            do {
                _ = try JournalRecord(decoding: Array(bytes[0..<length]))
            } catch {
                if length >= 4 { #expect(error == .truncated(length: length), "prefix \(length)") }
            }
        }
    }

    @Test func seededRandomDamageIsNeverTrusted() {
        let record = Self.sampleRecord()
        let bytes = record.encoded()
        var random = SplitMix64(seed: 0x25)
        for _ in 0..<2_000 {
            var damaged = bytes
            switch random.next() % 3 {
            case 0: damaged.removeLast(Int(random.next() % UInt64(bytes.count)) + 1)
            case 1:
                let index = Int(random.next() % UInt64(bytes.count))
                damaged[index] ^= UInt8(truncatingIfNeeded: random.next() % 255 + 1)
            default: damaged += [UInt8(truncatingIfNeeded: random.next())]
            }
            #expect(throws: JournalRecordError.self) { try JournalRecord(decoding: damaged) }
        }
    }

    @Test func aCorruptChecksumAVersionAndAForeignFileAreNamed() {
        var bytes = Self.sampleRecord().encoded()
        bytes[bytes.count - 1] ^= 1
        #expect(throws: JournalRecordError.checksumMismatch) { try JournalRecord(decoding: bytes) }
        var newer = Self.sampleRecord().encoded()
        newer[5] = 2
        #expect(throws: JournalRecordError.unsupportedVersion(2)) { try JournalRecord(decoding: newer) }
        #expect(throws: JournalRecordError.notARecord) { try JournalRecord(decoding: Array("{\"json\":1}".utf8)) }
    }

    @Test func aJournalWritesLoadsAndRemovesRecords() throws {
        let directory = try TemporaryDirectory(prefix: "fw-journal")
        let journal = try BackgroundJournal.open(directory: directory.path + "/id")
        try journal.write(Self.sampleRecord(3))
        try journal.write(Self.sampleRecord(7))
        var updated = Self.sampleRecord(7)
        updated.bytesWritten += 4 << 20
        try journal.write(updated)
        #expect(journal.load().records == [Self.sampleRecord(3), updated])
        journal.remove(3)
        #expect(journal.load().records == [updated])
        #expect(!directory.fileNames.isEmpty)
    }

    @Test func aTornRecordOnDiskIsReportedAndSetAside() throws {
        let directory = try TemporaryDirectory(prefix: "fw-journal")
        let journal = try BackgroundJournal.open(directory: directory.path)
        try journal.write(Self.sampleRecord(3))
        try journal.write(Self.sampleRecord(4))
        let path = journal.recordPath(4)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        // A write the process never finished (no rename) is no record.
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: journal.recordPath(5) + ".tmp"))
        let (records, problems) = journal.load()
        #expect(records == [Self.sampleRecord(3)])
        #expect(problems.count == 1)
        #expect(problems.first?.error == .truncated(length: bytes.count / 2))
        #expect(FileManager.default.fileExists(atPath: path + ".corrupt"))
        #expect(!FileManager.default.fileExists(atPath: journal.recordPath(5) + ".tmp"))
    }

    @Test func aFailedWriteKeepsThePreviousRecordWhole() throws {
        let directory = try TemporaryDirectory(prefix: "fw-journal")
        let journal = try BackgroundJournal.open(directory: directory.path)
        try journal.write(Self.sampleRecord(7))
        journal.injectedWriteFailure.withLock { $0 = ENOSPC }
        var updated = Self.sampleRecord(7)
        updated.bytesWritten += 1
        #expect(throws: URLError.self) { try journal.write(updated) }
        do {
            try journal.write(updated)
        } catch {
            #expect(error.code == .cannotWriteToFile)
            #expect("\(error.userInfo)".contains("No space left on device"))
        }
        journal.injectedWriteFailure.withLock { $0 = nil }
        #expect(journal.load().records == [Self.sampleRecord(7)])
    }

    @Test func aSecondOwnerGetsAClearError() throws {
        let directory = try TemporaryDirectory(prefix: "fw-journal")
        let first = try BackgroundJournal.open(directory: directory.path)
        do {
            _ = try BackgroundJournal.open(directory: directory.path)
            Issue.record("a second owner opened the journal")
        } catch {
            #expect(error.code == .cannotOpenFile)
            #expect("\(error.userInfo)".contains("in use by another live process (pid \(getpid()))"))
        }
        first.unlock()
        #expect(throws: Never.self) { _ = try BackgroundJournal.open(directory: directory.path) }
    }

    @Test func theDefaultDirectoryFollowsXDGCacheHome() {
        #expect(BackgroundJournal.defaultDirectory(identifier: "a/b", environment: ["XDG_CACHE_HOME": "/c"])
            == "/c/fwnetworking/background/a_b")
        #expect(BackgroundJournal.defaultDirectory(identifier: ".x", environment: ["HOME": "/h"])
            == "/h/.cache/fwnetworking/background/_.x")
        #expect(BackgroundJournal.defaultDirectory(identifier: "x", environment: [:]) == nil)
    }
}
