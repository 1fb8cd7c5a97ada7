// URLCredentialStorage+PersistenceTests.swift
//
// A persistent credential storage: `.permanent` user-and-password credentials reach a mode 0600 file and
// survive a restart; session credentials, identities and trusts never reach it; files that cannot be used
// give an empty storage and one log line.

import Foundation
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct URLCredentialStoragePersistenceTests {
    static let space = URLProtectionSpace(host: "api.fw.test", port: 443, protocol: "https", realm: "users",
                                          authenticationMethod: NSURLAuthenticationMethodHTTPDigest)
    static let proxy = URLProtectionSpace(proxyHost: "proxy.fw.test", port: 3128, type: NSURLProtectionSpaceHTTPProxy,
                                          realm: nil, authenticationMethod: NSURLAuthenticationMethodHTTPBasic)

    static func storage(_ path: String, log: LogRecorder = LogRecorder()) -> URLCredentialStorage {
        URLCredentialStorage(file: PersistentFile(path: path, mode: 0o600, log: log.log))
    }

    @Test func permanentCredentialsSurviveARestart() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("credentials.json")
        let storage = Self.storage(path)
        let ada = URLCredential(user: "ada", password: "pa\"ss\\wörd", persistence: .permanent)
        let bob = URLCredential(user: "bob", password: "pw", persistence: .permanent)
        storage.set(ada, for: Self.space)
        storage.setDefaultCredential(bob, for: Self.space)
        storage.set(URLCredential(user: "eve", password: "pw", persistence: .forSession), for: Self.space)
        storage.set(URLCredential(user: "pat", password: "pw", persistence: .permanent), for: Self.proxy)

        let reloaded = Self.storage(path)
        #expect(reloaded.credentials(for: Self.space) == ["ada": ada, "bob": bob])
        #expect(reloaded.defaultCredential(for: Self.space) == bob)
        #expect(reloaded.credentials(for: Self.proxy)?["pat"]?.password == "pw")
        let restoredSpace = try #require(reloaded.allCredentials.keys.first { $0.isProxy() })
        #expect(restoredSpace.proxyType == NSURLProtectionSpaceHTTPProxy)
        #expect(restoredSpace == Self.proxy)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(directory.fileNames == ["credentials.json"])
    }

    @Test func removalReachesTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("credentials.json")
        let storage = Self.storage(path)
        let ada = URLCredential(user: "ada", password: "pw", persistence: .permanent)
        storage.set(ada, for: Self.space)
        storage.remove(ada, for: Self.space)
        #expect(Self.storage(path).allCredentials.isEmpty)
        #expect(Self.storage(path).defaultCredential(for: Self.space) == nil)
    }

    @Test func nothingButPermanentPasswordsIsWritten() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("credentials.json")
        let storage = Self.storage(path)
        storage.set(URLCredential(user: "eve", password: "pw", persistence: .forSession), for: Self.space)
        let identity = URLCredential(identity: try URLCredentialTests.clientIdentity(), certificates: nil,
                                     persistence: .permanent)
        storage.setDefaultCredential(identity, for: Self.space)
        #expect(directory.fileNames.isEmpty)
        #expect(storage.defaultCredential(for: Self.space) == identity)
    }

    @Test(arguments: [
        ("truncated", "{\"version\":1,\"credentials\":[{\"host\":"),
        ("garbage", "\u{01}\u{02}"),
        ("wrong types", "{\"version\":1,\"credentials\":[{\"host\":7}]}"),
        ("another version", "{\"version\":9,\"credentials\":[]}"),
    ])
    func aCorruptFileIsAnEmptyStorageAndOneLogLine(_ kind: String, _ contents: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("credentials.json")
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        let log = LogRecorder()
        #expect(Self.storage(path, log: log).allCredentials.isEmpty, "\(kind)")
        #expect(log.lines.count == 1, "\(kind)")
    }

    @Test func invalidRecordsAreSkippedWithOneLogLine() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("credentials.json")
        func record(host: String, port: Int = 443, listed: Bool = true) -> String {
            "{\"host\":\"\(host)\",\"port\":\(port),\"authenticationMethod\":\"m\",\"isProxy\":false,"
                + "\"user\":\"u\",\"password\":\"p\",\"listed\":\(listed),\"isDefault\":false}"
        }
        let records = [record(host: "ok.test"), record(host: ""), record(host: "p.test", port: 70_000),
                       record(host: "n.test", listed: false)]
        try Data("{\"version\":1,\"credentials\":[\(records.joined(separator: ","))]}".utf8)
            .write(to: URL(fileURLWithPath: path))
        let log = LogRecorder()
        let storage = Self.storage(path, log: log)
        #expect(storage.allCredentials.keys.map(\.host) == ["ok.test"])
        #expect(log.lines.count == 1)
        #expect(log.lines.first?.contains("skipped 3") == true)
    }
}
