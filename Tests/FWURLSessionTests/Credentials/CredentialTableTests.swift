// CredentialTableTests.swift
//
// FoundationNetworking's credential storage rules on the table value alone: what is stored, defaults,
// removal, and which entries a persistent storage writes.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct CredentialTableTests {
    static let space = URLProtectionSpace(host: "api.fw.test", port: 443, protocol: "https", realm: "r",
                                          authenticationMethod: NSURLAuthenticationMethodHTTPBasic)

    static func credential(_ user: String = "ada", _ password: String = "pw",
                           _ persistence: URLCredential.Persistence = .permanent) -> URLCredential {
        URLCredential(user: user, password: password, persistence: persistence)
    }

    @Test(arguments: [
        (URLCredential.Persistence.none, false), (.forSession, true), (.permanent, true), (.synchronizable, false),
    ])
    func whichPersistencesAreStored(_ persistence: URLCredential.Persistence, _ stored: Bool) {
        var table = CredentialTable()
        let change = table.set(Self.credential("ada", "pw", persistence), for: Self.space, isDefault: false)
        #expect(change.changed == stored)
        #expect((table.credentials[Self.space]?["ada"] != nil) == stored)
    }

    @Test func theFirstCredentialBecomesTheDefault() {
        var table = CredentialTable()
        _ = table.set(Self.credential("ada"), for: Self.space, isDefault: false)
        _ = table.set(Self.credential("bob"), for: Self.space, isDefault: false)
        #expect(table.defaults[Self.space]?.user == "ada")
        _ = table.set(Self.credential("bob"), for: Self.space, isDefault: true)
        #expect(table.defaults[Self.space]?.user == "bob")
        #expect(table.credentials[Self.space]?.keys.sorted() == ["ada", "bob"])
    }

    @Test func aCredentialForTheSameUserReplacesTheOldOne() {
        var table = CredentialTable()
        _ = table.set(Self.credential("ada", "old"), for: Self.space, isDefault: false)
        let change = table.set(Self.credential("ada", "new"), for: Self.space, isDefault: false)
        #expect(change == CredentialTable.Change(changed: true, persistentChanged: true))
        #expect(table.credentials[Self.space]?["ada"]?.password == "new")
        #expect(table.defaults[Self.space]?.password == "old", "the default stays, as in FoundationNetworking")
        #expect(table.set(Self.credential("ada", "new"), for: Self.space, isDefault: false) == CredentialTable.Change())
    }

    @Test func aSessionCredentialIsNotWritten() {
        var table = CredentialTable()
        #expect(table.set(Self.credential("ada", "pw", .forSession), for: Self.space, isDefault: false)
            == CredentialTable.Change(changed: true, persistentChanged: false))
        #expect(table.writtenEntries.isEmpty)
    }

    @Test func removeRemovesFromUsersAndDefault() {
        var table = CredentialTable()
        _ = table.set(Self.credential("ada"), for: Self.space, isDefault: false)
        #expect(!table.remove(Self.credential("ada", "other"), for: Self.space).changed)
        #expect(table.remove(Self.credential("ada"), for: Self.space).changed)
        #expect(table.credentials[Self.space] == nil)
        #expect(table.defaults[Self.space] == nil)
    }

    @Test func writtenEntriesKeepListedAndDefaultApart() {
        var table = CredentialTable()
        let other = URLProtectionSpace(host: "b.fw.test", port: 80, protocol: "http", realm: nil,
                                       authenticationMethod: NSURLAuthenticationMethodHTTPDigest)
        _ = table.set(Self.credential("ada", "old"), for: Self.space, isDefault: false)
        _ = table.set(Self.credential("ada", "new"), for: Self.space, isDefault: false)
        _ = table.set(Self.credential("bob"), for: other, isDefault: false)
        _ = table.set(Self.credential("eve", "s", .forSession), for: other, isDefault: true)
        let entries = table.writtenEntries
        #expect(entries.map { "\($0.space.host) \($0.credential.password ?? "") \($0.listed) \($0.isDefault)" } == [
            "api.fw.test new true false", "api.fw.test old false true", "b.fw.test pw true false",
        ])
        var restored = CredentialTable()
        entries.forEach { restored.restore($0) }
        #expect(restored.credentials[Self.space]?["ada"]?.password == "new")
        #expect(restored.defaults[Self.space]?.password == "old")
        #expect(restored.defaults[other] == nil, "the session default is not written")
    }
}
