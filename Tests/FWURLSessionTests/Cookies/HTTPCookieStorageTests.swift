// HTTPCookieStorageTests.swift
//
// HTTPCookieStorage in memory: reading in RFC 6265's order, the accept policies, removal, sorting,
// expiry by an injected clock, the notifications (posted outside the lock) and thread safety.

import Foundation
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct HTTPCookieStorageTests {
    static let suffixes = PublicSuffixList(rules: "com\nuk\nco.uk\n")

    static func storage(clock: TestClock = TestClock()) -> HTTPCookieStorage {
        HTTPCookieStorage(file: nil, clock: clock.clock, publicSuffixes: suffixes)
    }

    static func cookie(_ name: String, domain: String = "example.com", path: String = "/",
                       expires: Date? = nil, secure: Bool = false) throws -> HTTPCookie {
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: "v-\(name)", .domain: domain, .path: path]
        properties[.expires] = expires
        if secure { properties[.secure] = "TRUE" }
        return try #require(HTTPCookie(properties: properties))
    }

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    // MARK: Reading

    @Test func aNewStorageIsEmptyAndAcceptsEverything() {
        let storage = Self.storage()
        #expect(storage.cookies?.isEmpty == true)
        #expect(storage.cookieAcceptPolicy == .always)
        #expect(storage.description == "Ephemeral<NSHTTPCookieStorage cookies count:0>")
    }

    @Test func cookiesForAURLFollowRFC6265() throws {
        let storage = Self.storage()
        for cookie in [try Self.cookie("root"), try Self.cookie("deep", path: "/a/b"),
                       try Self.cookie("mid", path: "/a"), try Self.cookie("sub", domain: ".example.com"),
                       try Self.cookie("other", domain: "other.com"), try Self.cookie("safe", secure: true)] {
            storage.setCookie(cookie)
        }
        #expect(storage.cookies(for: try Self.url("http://example.com/a/b/c"))?.map(\.name)
            == ["deep", "mid", "root", "sub"])
        #expect(storage.cookies(for: try Self.url("https://example.com/"))?.map(\.name) == ["root", "sub", "safe"])
        #expect(storage.cookies(for: try Self.url("http://www.example.com/"))?.map(\.name) == ["sub"])
        #expect(storage.cookies(for: try Self.url("file:///tmp")) == nil)
        #expect(storage.cookies?.count == 6)
        #expect(storage.description == "Ephemeral<NSHTTPCookieStorage cookies count:6>")
    }

    @Test func expiredCookiesDisappearAsTheClockMoves() throws {
        let clock = TestClock()
        let storage = Self.storage(clock: clock)
        storage.setCookie(try Self.cookie("brief", expires: clock.now.addingTimeInterval(10)))
        storage.setCookie(try Self.cookie("session"))
        #expect(storage.cookies?.count == 2)
        clock.advance(by: 10)
        #expect(storage.cookies?.map(\.name) == ["session"])
        #expect(storage.cookies(for: try Self.url("http://example.com/"))?.map(\.name) == ["session"])
    }

    @Test func sortedCookiesFollowTheDescriptors() throws {
        let storage = Self.storage()
        for (name, path) in [("b", "/1"), ("a", "/2"), ("c", "/1"), ("a", "/1")] {
            storage.setCookie(try Self.cookie(name, path: path))
        }
        let byName = storage.sortedCookies(using: [NSSortDescriptor(keyPath: \HTTPCookie.name, ascending: true),
                                                   NSSortDescriptor(keyPath: \HTTPCookie.path, ascending: false)])
        #expect(byName.map { "\($0.name)\($0.path)" } == ["a/2", "a/1", "b/1", "c/1"])
        #expect(storage.sortedCookies(using: []).map { "\($0.name)\($0.path)" } == ["b/1", "a/2", "c/1", "a/1"])
    }

    // MARK: Changing

    @Test func setCookieReplacesAndKeepsTheCreationTime() throws {
        let clock = TestClock()
        let storage = Self.storage(clock: clock)
        let first = try Self.cookie("a")
        storage.setCookie(first)
        clock.advance(by: 60)
        storage.setCookie(try #require(HTTPCookie(properties: [.name: "a", .value: "new", .domain: "example.com",
                                                               .path: "/"])))
        #expect(storage.cookies?.map(\.value) == ["new"])
        #expect(storage.cookies?.first?.creationDate == first.creationDate)
    }

    @Test func deleteAndRemoveSince() throws {
        let clock = TestClock()
        let storage = Self.storage(clock: clock)
        storage.setCookie(try Self.cookie("old"))
        let old = try #require(storage.cookies?.first)
        let created = old.creationDate
        let newer = try #require(HTTPCookie(properties: [
            .name: "new", .value: "v", .domain: "example.com", .path: "/",
            HTTPCookiePropertyKey("Created"): created.timeIntervalSinceReferenceDate + 10,
        ]))
        storage.setCookie(newer)
        storage.setCookie(try Self.cookie("gone"))
        storage.deleteCookie(try Self.cookie("gone"))
        #expect(storage.cookies?.map(\.name).sorted() == ["new", "old"])
        storage.removeCookies(since: created.addingTimeInterval(5))
        #expect(storage.cookies?.map(\.name) == ["old"])
    }

    @Test func theNeverPolicyRefusesEverySetter() throws {
        let storage = Self.storage()
        storage.cookieAcceptPolicy = .never
        storage.setCookie(try Self.cookie("a"))
        storage.setCookies([try Self.cookie("b")], for: try Self.url("http://example.com/"), mainDocumentURL: nil)
        #expect(storage.cookies?.isEmpty == true)
    }

    @Test(arguments: [
        (HTTPCookie.AcceptPolicy.always, "http://example.com/", "http://elsewhere.org/", true),
        (.never, "http://example.com/", nil, false),
        (.onlyFromMainDocumentDomain, "http://www.example.com/", "http://example.com/", true),   // same site
        (.onlyFromMainDocumentDomain, "http://api.example.com/", "https://www.example.com/", true),
        (.onlyFromMainDocumentDomain, "http://example.com/", "http://elsewhere.org/", false),    // third party
        (.onlyFromMainDocumentDomain, "http://a.co.uk/", "http://b.co.uk/", false),              // suffix != site
        (.onlyFromMainDocumentDomain, "http://example.com/", nil, true),                         // no main document
    ] as [(HTTPCookie.AcceptPolicy, String, String?, Bool)])
    func setCookiesFollowsTheAcceptPolicy(_ policy: HTTPCookie.AcceptPolicy, _ url: String, _ main: String?,
                                          _ accepted: Bool) throws {
        let storage = Self.storage()
        storage.cookieAcceptPolicy = policy
        let host = try #require(URL(string: url)?.host)
        storage.setCookies([try Self.cookie("a", domain: host)], for: try Self.url(url),
                           mainDocumentURL: try main.map(Self.url))
        #expect(storage.cookies?.isEmpty == !accepted, "\(policy) \(url) \(main ?? "nil")")
    }

    @Test func setCookiesLeavesOutCookiesForOtherDomains() throws {
        let storage = Self.storage()
        storage.setCookies([try Self.cookie("mine", domain: "www.example.com"),
                            try Self.cookie("parent", domain: ".example.com"),
                            try Self.cookie("host-of-parent", domain: "example.com"),
                            try Self.cookie("theirs", domain: "other.com")],
                           for: try Self.url("http://www.example.com/"), mainDocumentURL: nil)
        #expect(storage.cookies?.map(\.name) == ["mine", "parent"])
        storage.setCookies([try Self.cookie("x")], for: nil, mainDocumentURL: nil)
        #expect(storage.cookies?.count == 2)
    }

    // MARK: For the session

    @Test func setCookieFieldsAndTheCookieFieldValue() throws {
        let storage = Self.storage()
        let url = try Self.url("https://www.example.com/app/x")
        storage.setCookies(fromSetCookieFields: ["a=1; Path=/", "b=2", "c=3; Domain=com", "d=4; Secure; Path=/"],
                           for: url, mainDocumentURL: nil, policy: .always)
        #expect(storage.cookieFieldValue(for: try Self.url("https://www.example.com/app/y")) == "b=2; a=1; d=4")
        #expect(storage.cookieFieldValue(for: try Self.url("http://www.example.com/")) == "a=1")
        #expect(storage.cookieFieldValue(for: try Self.url("http://other.com/")) == nil)
    }

    @Test func theSessionPolicyOverridesTheStorages() throws {
        let storage = Self.storage()
        storage.cookieAcceptPolicy = .never
        storage.setCookies(fromSetCookieFields: ["a=1"], for: try Self.url("http://example.com/"),
                           mainDocumentURL: try Self.url("http://example.com/"), policy: .onlyFromMainDocumentDomain)
        #expect(storage.cookies?.count == 1)
        storage.setCookies(fromSetCookieFields: ["b=1"], for: try Self.url("http://example.com/"), mainDocumentURL: nil,
                           policy: .never)
        #expect(storage.cookies?.count == 1)
    }

    // MARK: Notifications

    @Test func changesPostCookiesChangedOncePerChange() throws {
        let storage = Self.storage()
        let recorder = NotificationRecorder(.NSHTTPCookieManagerCookiesChanged, object: storage)
        let cookie = try Self.cookie("a")
        storage.setCookie(cookie)
        storage.setCookie(cookie)                                   // no change: no notification
        storage.deleteCookie(cookie)
        storage.deleteCookie(cookie)                                // nothing to delete
        storage.setCookies([try Self.cookie("b"), try Self.cookie("c")], for: try Self.url("http://example.com/"),
                           mainDocumentURL: nil)
        #expect(recorder.received == 3)
    }

    @Test func changingThePolicyPostsAcceptPolicyChanged() {
        let storage = Self.storage()
        let recorder = NotificationRecorder(.NSHTTPCookieManagerAcceptPolicyChanged, object: storage)
        storage.cookieAcceptPolicy = .never
        storage.cookieAcceptPolicy = .never
        storage.cookieAcceptPolicy = .onlyFromMainDocumentDomain
        #expect(recorder.received == 2)
        #expect(storage.cookieAcceptPolicy == .onlyFromMainDocumentDomain)
    }

    @Test func notificationsArePostedOutsideTheLock() throws {
        let storage = Self.storage()
        let seen = LockedBox<[Int]>([])
        let token = NotificationCenter.default.addObserver(forName: .NSHTTPCookieManagerCookiesChanged, object: storage,
                                                           queue: nil) { _ in
            seen.withLock { $0.append(storage.cookies?.count ?? -1) }   // would deadlock under the lock
        }
        defer { NotificationCenter.default.removeObserver(token) }
        storage.setCookie(try Self.cookie("a"))
        #expect(seen.withLock { $0 } == [1])
    }

    @Test func theNotificationNamesAreFoundations() {
        #expect(NSNotification.Name.NSHTTPCookieManagerCookiesChanged.rawValue
            == "NSHTTPCookieManagerCookiesChangedNotification")
        #expect(NSNotification.Name.NSHTTPCookieManagerAcceptPolicyChanged.rawValue
            == "NSHTTPCookieManagerAcceptPolicyChangedNotification")
    }

    // MARK: Instances, threads

    @Test func sharedAndGroupStoragesAreSingletons() {
        #expect(HTTPCookieStorage.shared === HTTPCookieStorage.shared)
        let group = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "group.fw.test")
        #expect(group === HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "group.fw.test"))
        #expect(group !== HTTPCookieStorage.shared)
        #expect(group.file?.path.hasSuffix("/cookies-group.fw.test.json") ?? true)
        #expect(HTTPCookieStorage.ephemeral() !== HTTPCookieStorage.ephemeral())
    }

    @Test func concurrentUseIsSafe() async throws {
        let storage = Self.storage()
        let url = try Self.url("http://example.com/")
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for step in 0..<200 {
                        if let cookie = HTTPCookie(properties: [.name: "w\(worker)-\(step % 20)", .value: "\(step)",
                                                                .domain: "example.com", .path: "/"]) {
                            storage.setCookie(cookie)
                        }
                        _ = storage.cookies(for: url)
                        if step % 7 == 0 { storage.removeCookies(since: .distantFuture) }
                    }
                }
            }
        }
        #expect(storage.cookies?.count == 80)
    }
}
