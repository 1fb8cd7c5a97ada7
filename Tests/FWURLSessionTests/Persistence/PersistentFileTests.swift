// PersistentFileTests.swift
//
// The file behind a persistent store: its location, reading (absent is not an error), atomic replacement
// with the store's mode, writes in generation order, and one log line for failed writes.

import Foundation
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct PersistentFileTests {
    @Test(arguments: [
        (["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"], "/x/data/FWNetworking"),
        (["HOME": "/home/u"], "/home/u/.local/share/FWNetworking"),
        (["XDG_DATA_HOME": "relative", "HOME": "/home/u"], "/home/u/.local/share/FWNetworking"),
        ([:], nil),
        (["HOME": ""], nil),
    ] as [([String: String], String?)])
    func theDataDirectoryFollowsXDG(_ environment: [String: String], _ directory: String?) {
        #expect(PersistentFile.dataDirectory(environment: environment) == directory)
    }

    @Test func readingAnAbsentFileGivesNil() throws {
        let directory = try TemporaryDirectory()
        #expect(try PersistentFile(path: directory.file("none"), mode: 0o600).read() == nil)
    }

    @Test func writesCreateTheDirectoryAndTheFileWithItsMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a/b/store.json")
        let file = PersistentFile(path: path, mode: 0o600)
        file.write(Data("one".utf8), generation: 1)
        #expect(try file.read() == Data("one".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        file.write(Data("two".utf8), generation: 2)
        #expect(try file.read() == Data("two".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("a/b")) == ["store.json"])
    }

    @Test func anOlderGenerationIsNotWrittenOverANewerOne() throws {
        let directory = try TemporaryDirectory()
        let file = PersistentFile(path: directory.file("store.json"), mode: 0o600)
        file.write(Data("new".utf8), generation: 5)
        file.write(Data("old".utf8), generation: 4)
        file.write(Data("same".utf8), generation: 5)
        #expect(try file.read() == Data("new".utf8))
    }

    @Test func failedWritesAreLoggedOnce() throws {
        let directory = try TemporaryDirectory()
        let blocker = directory.file("blocker")
        try Data().write(to: URL(fileURLWithPath: blocker))
        let log = LogRecorder()
        let file = PersistentFile(path: blocker + "/store.json", mode: 0o600, log: log.log)
        file.write(Data("x".utf8), generation: 1)
        file.write(Data("y".utf8), generation: 2)
        #expect(log.lines.count == 1)
        #expect(log.lines.first?.contains("kept in memory") == true)
    }

    @Test func aDirectoryCannotBeRead() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: (any Error).self) { try PersistentFile(path: directory.path, mode: 0o600).read() }
    }
}
