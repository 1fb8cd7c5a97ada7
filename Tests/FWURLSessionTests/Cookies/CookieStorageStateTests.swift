// CookieStorageStateTests.swift
//
// The state of a cookie storage on the value alone (no lock, no file, no notification centre): which changes
// are announced, which ones carry a snapshot to write and with which generation, the accept policy, and
// forgetting expired cookies as part of every change.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct CookieStorageStateTests {
    static let now = CookieJarTests.now

    static func session(_ name: String) -> HTTPCookie {
        CookieJarTests.make(name)
    }

    static func persistent(_ name: String, expires: Date = now + 3600) -> HTTPCookie {
        CookieJarTests.make(name, expires: expires)
    }

    /// The effects summarised: "changed", "policy", "write <generation>: <names>", or "-".
    static func summary(_ effects: CookieStorageEffects) -> String {
        var parts: [String] = []
        if effects.cookiesChanged { parts.append("changed") }
        if effects.acceptPolicyChanged { parts.append("policy") }
        if let snapshot = effects.snapshot {
            parts.append("write \(snapshot.generation): " + snapshot.cookies.map(\.name).joined(separator: ","))
        }
        return parts.isEmpty ? "-" : parts.joined(separator: " ")
    }

    @Test func aPersistentStorageWritesOnlyWhenPersistentCookiesChange() {
        var state = CookieStorageState(jar: CookieJar(), isPersistent: true)
        #expect(Self.summary(state.store(Self.session("s"), now: Self.now)) == "changed")
        #expect(Self.summary(state.store(Self.persistent("p"), now: Self.now)) == "changed write 2: p")
        #expect(Self.summary(state.store(Self.persistent("p"), now: Self.now)) == "-")
        #expect(Self.summary(state.store(Self.persistent("q"), now: Self.now)) == "changed write 3: p,q")
        #expect(state.generation == 3)
    }

    @Test func anInMemoryStorageNeverWrites() {
        var state = CookieStorageState(jar: CookieJar(), isPersistent: false)
        #expect(Self.summary(state.store(Self.persistent("p"), now: Self.now)) == "changed")
        #expect(Self.summary(state.change(now: Self.now) { jar, _ in jar.remove(Self.persistent("p")) }) == "changed")
        #expect(state.generation == 2)
    }

    @Test func aChangeThatChangesNothingIsNotAnnouncedAndKeepsTheGeneration() {
        var state = CookieStorageState(jar: CookieJar(), isPersistent: true)
        #expect(Self.summary(state.change(now: Self.now) { jar, _ in jar.remove(Self.session("none")) }) == "-")
        #expect(state.generation == 0)
    }

    @Test func everyChangeForgetsExpiredCookiesFirst() {
        var state = CookieStorageState(jar: CookieJar(), isPersistent: true)
        _ = state.store(Self.persistent("old", expires: Self.now + 10), now: Self.now)
        // Nothing else changes, but "old" expired: that is a change, and the snapshot no longer has it.
        let later = Self.now + 20
        #expect(Self.summary(state.change(now: later) { _, _ in CookieJar.Change() }) == "changed write 2: ")
        #expect(state.jar.cookies(now: Self.now).isEmpty)
    }

    @Test func responseCookiesAreStoredTogetherAsOneChange() {
        var state = CookieStorageState(jar: CookieJar(), isPersistent: true)
        let cookies = [Self.persistent("a"), Self.session("b"), Self.persistent("c")]
        #expect(Self.summary(state.store(cookies, fromSecureScheme: true, now: Self.now)) == "changed write 1: a,c")
        #expect(state.jar.cookies(now: Self.now).map(\.name) == ["a", "b", "c"])
    }

    @Test func anInsecureResponseCannotShadowASecureCookie() {
        var state = CookieStorageState(jar: CookieJar(), isPersistent: false)
        _ = state.store(CookieJarTests.make("id", value: "secure", secure: true), now: Self.now)
        #expect(Self.summary(state.store([Self.session("id")], fromSecureScheme: false, now: Self.now)) == "-")
        #expect(state.jar.cookies(now: Self.now).map(\.value) == ["secure"])
    }

    @Test func aNewAcceptPolicyIsAnnouncedAndLeavesTheCookiesAlone() {
        var state = CookieStorageState(jar: CookieJar(), isPersistent: true)
        _ = state.store(Self.persistent("p"), now: Self.now)
        #expect(Self.summary(state.setAcceptPolicy(.always)) == "-")
        #expect(Self.summary(state.setAcceptPolicy(.never)) == "policy")
        #expect(Self.summary(state.setAcceptPolicy(.never)) == "-")
        #expect(Self.summary(state.setAcceptPolicy(.onlyFromMainDocumentDomain)) == "policy")
        #expect(state.acceptPolicy == .onlyFromMainDocumentDomain)
        #expect(state.jar.cookies(now: Self.now).map(\.name) == ["p"])
        #expect(state.generation == 1)
    }
}
