// CookieJarTests.swift
//
// RFC 6265 §5.3 steps 11-12 and the storage limits, on the jar value alone.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct CookieJarTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func make(_ name: String = "n", value: String = "v", domain: String = "example.com", path: String = "/",
                     secure: Bool = false, expires: Date? = nil, created: Date = now) -> HTTPCookie {
        HTTPCookie(fields: HTTPCookie.Fields(
            name: name, value: value, domain: domain, path: path, expiresDate: expires,
            isSessionOnly: expires == nil, isSecure: secure, creationDate: created
        ))
    }

    // MARK: Replacing

    @Test func replacingKeepsTheCreationTime() {
        var jar = CookieJar()
        _ = jar.store(Self.make(value: "1"), fromSecureScheme: nil, now: Self.now)
        let later = Self.now.addingTimeInterval(100)
        let change = jar.store(Self.make(value: "2", created: later), fromSecureScheme: nil, now: later)
        #expect(change == CookieJar.Change(changed: true, persistentChanged: false))
        let stored = jar.cookies(now: later)
        #expect(stored.map(\.value) == ["2"])
        #expect(stored.first?.creationDate == Self.now)
    }

    @Test func aHostOnlyAndADomainCookieForTheSameDomainReplaceEachOther() {
        var jar = CookieJar()
        _ = jar.store(Self.make(domain: "example.com"), fromSecureScheme: nil, now: Self.now)
        _ = jar.store(Self.make(domain: ".example.com"), fromSecureScheme: nil, now: Self.now)
        #expect(jar.cookies(now: Self.now).map(\.domain) == [".example.com"])
    }

    @Test func differentNamesDomainsOrPathsAreDifferentCookies() {
        var jar = CookieJar()
        for cookie in [Self.make(), Self.make("m"), Self.make(domain: "other.com"), Self.make(path: "/p")] {
            _ = jar.store(cookie, fromSecureScheme: nil, now: Self.now)
        }
        #expect(jar.cookies(now: Self.now).count == 4)
    }

    @Test func storingTheSameCookieAgainChangesNothing() {
        var jar = CookieJar()
        let expires = Self.now.addingTimeInterval(60)
        #expect(jar.store(Self.make(expires: expires), fromSecureScheme: nil, now: Self.now)
            == CookieJar.Change(changed: true, persistentChanged: true))
        #expect(jar.store(Self.make(expires: expires), fromSecureScheme: nil, now: Self.now) == CookieJar.Change())
    }

    @Test func anExpiredCookieDeletesTheStoredOne() {
        var jar = CookieJar()
        _ = jar.store(Self.make(expires: Self.now.addingTimeInterval(60)), fromSecureScheme: nil, now: Self.now)
        let change = jar.store(Self.make(expires: .distantPast), fromSecureScheme: nil, now: Self.now)
        #expect(change == CookieJar.Change(changed: true, persistentChanged: true))
        #expect(jar.cookies(now: Self.now).isEmpty)
        #expect(jar.store(Self.make(expires: .distantPast), fromSecureScheme: nil, now: Self.now) == CookieJar.Change())
    }

    // MARK: Leave secure cookies alone

    @Test(arguments: [
        ("example.com", "/", false, false),                 // same cookie from http: refused
        ("www.example.com", "/", false, false),             // a subdomain shadowing it: refused
        ("example.com", "/deep", false, false),             // a deeper path: refused
        ("example.com", "/", true, true),                   // from https: accepted
        ("other.com", "/", false, true),                    // another domain: accepted
    ])
    func anInsecureSchemeCannotTouchASecureCookie(_ domain: String, _ path: String, _ secureScheme: Bool,
                                                  _ accepted: Bool) {
        var jar = CookieJar()
        _ = jar.store(Self.make(value: "secret", secure: true), fromSecureScheme: true, now: Self.now)
        let change = jar.store(Self.make(value: "x", domain: domain, path: path), fromSecureScheme: secureScheme,
                               now: Self.now)
        #expect(change.changed == accepted)
    }

    @Test func aDifferentNameOrTheAPIIsNotBlocked() {
        var jar = CookieJar()
        _ = jar.store(Self.make(secure: true), fromSecureScheme: true, now: Self.now)
        #expect(jar.store(Self.make("other"), fromSecureScheme: false, now: Self.now).changed)
        #expect(jar.store(Self.make(value: "api"), fromSecureScheme: nil, now: Self.now).changed)
    }

    // MARK: Removing

    @Test func removeRemovesByNameDomainAndPath() {
        var jar = CookieJar()
        _ = jar.store(Self.make(value: "1"), fromSecureScheme: nil, now: Self.now)
        #expect(jar.remove(Self.make(value: "other value")).changed)
        #expect(jar.cookies(now: Self.now).isEmpty)
        #expect(!jar.remove(Self.make()).changed)
    }

    @Test func removeExpiredForgetsExpiredCookies() {
        var jar = CookieJar()
        _ = jar.store(Self.make("a", expires: Self.now.addingTimeInterval(10)), fromSecureScheme: nil, now: Self.now)
        _ = jar.store(Self.make("b"), fromSecureScheme: nil, now: Self.now)
        let later = Self.now.addingTimeInterval(10)
        #expect(jar.cookies(now: later).map(\.name) == ["b"])
        #expect(jar.entries.count == 2)
        #expect(jar.removeExpired(now: later) == CookieJar.Change(changed: true, persistentChanged: true))
        #expect(jar.entries.count == 1)
    }

    // MARK: Limits

    @Test func thePerDomainLimitEvictsTheOldest() {
        var jar = CookieJar(limits: CookieJar.Limits(perDomain: 2, total: 10))
        for index in 0..<3 {
            _ = jar.store(Self.make("c\(index)", created: Self.now.addingTimeInterval(Double(index))),
                          fromSecureScheme: nil, now: Self.now)
        }
        _ = jar.store(Self.make("x", domain: "other.com"), fromSecureScheme: nil, now: Self.now)
        #expect(jar.cookies(now: Self.now).map(\.name).sorted() == ["c1", "c2", "x"])
    }

    @Test func expiredCookiesAreEvictedBeforeOlderLiveOnes() {
        var jar = CookieJar(limits: CookieJar.Limits(perDomain: 2, total: 10))
        _ = jar.store(Self.make("old"), fromSecureScheme: nil, now: Self.now)
        let soon = Self.now.addingTimeInterval(1)
        _ = jar.store(Self.make("dying", expires: soon, created: soon), fromSecureScheme: nil, now: Self.now)
        let later = Self.now.addingTimeInterval(5)
        _ = jar.store(Self.make("new", created: later), fromSecureScheme: nil, now: later)
        #expect(jar.cookies(now: later).map(\.name) == ["old", "new"])
    }

    @Test func theTotalLimitEvictsTheOldest() {
        var jar = CookieJar(limits: CookieJar.Limits(perDomain: 10, total: 3))
        for index in 0..<5 {
            _ = jar.store(Self.make(domain: "d\(index).test", created: Self.now.addingTimeInterval(Double(index))),
                          fromSecureScheme: nil, now: Self.now)
        }
        #expect(jar.cookies(now: Self.now).map(\.domain) == ["d2.test", "d3.test", "d4.test"])
    }

    // MARK: Reading

    @Test func readsInCreationOrderAndForAURLInRequestOrder() throws {
        var jar = CookieJar()
        _ = jar.store(Self.make("root", path: "/"), fromSecureScheme: nil, now: Self.now)
        _ = jar.store(Self.make("deep", path: "/a/b"), fromSecureScheme: nil, now: Self.now)
        _ = jar.store(Self.make("mid", path: "/a"), fromSecureScheme: nil, now: Self.now)
        _ = jar.store(Self.make("elsewhere", path: "/z"), fromSecureScheme: nil, now: Self.now)
        #expect(jar.cookies(now: Self.now).map(\.name) == ["root", "deep", "mid", "elsewhere"])
        let url = try #require(URL(string: "http://example.com/a/b/c"))
        #expect(jar.cookies(for: url, now: Self.now).map(\.name) == ["deep", "mid", "root"])
    }

    @Test func persistentCookiesExcludeSessionOnes() {
        var jar = CookieJar()
        _ = jar.store(Self.make("session"), fromSecureScheme: nil, now: Self.now)
        _ = jar.store(Self.make("kept", expires: Self.now.addingTimeInterval(60)), fromSecureScheme: nil, now: Self.now)
        #expect(jar.persistentCookies(now: Self.now).map(\.name) == ["kept"])
    }
}
