// HTTPCookieStorage+PersistenceTests.swift
//
// A persistent cookie storage: what reaches the file (persistent cookies only, mode 0600, atomic
// replacement), a simulated restart (a new storage from the same file), and files that cannot be used
// (absent, truncated, garbage, wrong types, another version, unreadable): an empty storage, one log line,
// never a crash.

import Foundation
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct HTTPCookieStoragePersistenceTests {
    static let suffixes = PublicSuffixList(rules: "com\n")

    static func storage(_ path: String, clock: TestClock, log: LogRecorder) -> HTTPCookieStorage {
        HTTPCookieStorage(file: PersistentFile(path: path, mode: 0o600, log: log.log), clock: clock.clock,
                          publicSuffixes: suffixes)
    }

    static func fill(_ storage: HTTPCookieStorage, clock: TestClock) throws {
        let url = try #require(URL(string: "https://www.example.com/app/page"))
        storage.setCookies(fromSetCookieFields: [
            "kept=1; Max-Age=3600; Secure; HttpOnly; SameSite=Strict",
            "wide=2; Domain=example.com; Path=/; Expires=Wed, 01 Jan 2031 00:00:00 GMT",
            "session=3",
            "old=4; Max-Age=10",
        ], for: url, mainDocumentURL: nil, policy: .always)
    }

    // MARK: Round trip

    @Test func persistentCookiesSurviveARestart() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cookies.json")
        let clock = TestClock()
        let log = LogRecorder()
        try Self.fill(Self.storage(path, clock: clock, log: log), clock: clock)
        clock.advance(by: 60)

        let reloaded = Self.storage(path, clock: clock, log: log)
        let cookies = try #require(reloaded.cookies)
        #expect(cookies.map(\.name) == ["kept", "wide"])
        let kept = try #require(cookies.first)
        #expect(kept.domain == "www.example.com")
        #expect(kept.path == "/app")
        #expect(kept.isSecure && kept.isHTTPOnly && !kept.isSessionOnly)
        #expect(kept.sameSitePolicy == .sameSiteStrict)
        #expect(kept.expiresDate == clock.now.addingTimeInterval(3600 - 60))
        #expect(kept.creationDate == clock.now.addingTimeInterval(-60))
        #expect(cookies[1].domain == ".example.com")
        #expect(log.lines.isEmpty)
    }

    @Test func cookiesExpiredWhileStoppedAreNotLoaded() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cookies.json")
        let clock = TestClock()
        let log = LogRecorder()
        try Self.fill(Self.storage(path, clock: clock, log: log), clock: clock)
        clock.advance(by: 3600)
        #expect(Self.storage(path, clock: clock, log: log).cookies?.map(\.name) == ["wide"])
    }

    @Test func deletionsReachTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cookies.json")
        let clock = TestClock()
        let log = LogRecorder()
        let storage = Self.storage(path, clock: clock, log: log)
        try Self.fill(storage, clock: clock)
        let wide = try #require(storage.cookies?.first { $0.name == "wide" })
        storage.deleteCookie(wide)
        #expect(Self.storage(path, clock: clock, log: log).cookies?.map(\.name) == ["kept", "old"])
        storage.removeCookies(since: .distantPast)
        #expect(Self.storage(path, clock: clock, log: log).cookies?.isEmpty == true)
    }

    @Test func sessionCookiesAloneDoNotWriteTheFile() throws {
        let directory = try TemporaryDirectory()
        let storage = Self.storage(directory.file("cookies.json"), clock: TestClock(), log: LogRecorder())
        storage.setCookies(fromSetCookieFields: ["a=1"], for: try #require(URL(string: "http://example.com/")),
                           mainDocumentURL: nil, policy: .always)
        #expect(storage.cookies?.count == 1)
        #expect(directory.fileNames.isEmpty)
    }

    @Test func theFileIsPrivateAndReplacedAtomically() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("sub/cookies.json")
        let clock = TestClock()
        let storage = Self.storage(path, clock: clock, log: LogRecorder())
        try Self.fill(storage, clock: clock)
        try Self.fill(storage, clock: clock)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("sub")) == ["cookies.json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [String: Any])
        #expect(json["version"] as? Int == 1)
        #expect((json["cookies"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["kept", "wide", "old"])
    }

    // MARK: Files that cannot be used

    @Test func anAbsentFileIsAnEmptyStorageWithoutALogLine() throws {
        let directory = try TemporaryDirectory()
        let log = LogRecorder()
        #expect(Self.storage(directory.file("none.json"), clock: TestClock(), log: log).cookies?.isEmpty == true)
        #expect(log.lines.isEmpty)
    }

    @Test(arguments: [
        ("truncated", "{\"version\": 1, \"cookies\": [{\"name\": \"a\", \"val"),
        ("garbage", "\u{00}\u{FF}not json at all"),
        ("empty", ""),
        ("wrong types", "{\"version\": \"1\", \"cookies\": {}}"),
        ("wrong field type", "{\"version\": 1, \"cookies\": [{\"name\": 1}]}"),
        ("another version", "{\"version\": 2, \"cookies\": []}"),
        ("an array", "[]"),
    ])
    func aCorruptFileIsAnEmptyStorageAndOneLogLine(_ kind: String, _ contents: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cookies.json")
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        let log = LogRecorder()
        let clock = TestClock()
        let storage = Self.storage(path, clock: clock, log: log)
        #expect(storage.cookies?.isEmpty == true, "\(kind)")
        #expect(log.lines.count == 1, "\(kind)")
        #expect(log.lines.first?.contains(path) == true)
        try Self.fill(storage, clock: clock)
        #expect(Self.storage(path, clock: clock, log: log).cookies?.count == 3, "the next change rewrites \(kind)")
    }

    @Test func invalidRecordsAreSkippedWithOneLogLine() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cookies.json")
        func record(_ name: String, domain: String = "example.com", path: String = "/") -> String {
            "{\"name\":\"\(name)\",\"value\":\"v\",\"domain\":\"\(domain)\",\"path\":\"\(path)\","
                + "\"expires\":1900000000,\"created\":1600000000,\"secure\":false,\"httpOnly\":false,\"version\":0}"
        }
        let records = [record("good"), record(""), record("nodomain", domain: ""), record("badpath", path: "x")]
        try Data("{\"version\":1,\"cookies\":[\(records.joined(separator: ","))]}".utf8)
            .write(to: URL(fileURLWithPath: path))
        let log = LogRecorder()
        #expect(Self.storage(path, clock: TestClock(), log: log).cookies?.map(\.name) == ["good"])
        #expect(log.lines.count == 1)
        #expect(log.lines.first?.contains("skipped 3") == true)
    }

    @Test func aDirectoryInPlaceOfTheFileIsUnreadable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cookies.json")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let log = LogRecorder()
        let clock = TestClock()
        let storage = Self.storage(path, clock: clock, log: log)
        #expect(storage.cookies?.isEmpty == true)
        #expect(log.lines.count == 1)
        try Self.fill(storage, clock: clock)
        try Self.fill(storage, clock: clock)
        #expect(storage.cookies?.count == 4, "the storage keeps working in memory")
        #expect(log.lines.count == 2, "one line for the failed writes")
    }

    @Test(.enabled(if: geteuid() != 0, "root reads files whatever their mode"))
    func aFileWithoutReadPermissionIsUnreadable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cookies.json")
        try Data("{\"version\":1,\"cookies\":[]}".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0)
        let log = LogRecorder()
        #expect(Self.storage(path, clock: TestClock(), log: log).cookies?.isEmpty == true)
        #expect(log.lines.count == 1)
    }
}
