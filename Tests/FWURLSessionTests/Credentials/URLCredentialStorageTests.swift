// URLCredentialStorageTests.swift
//
// URLCredentialStorage in memory: the public API, protection-space keys compared as Foundation compares
// them, the change notification (outside the lock), identities kept as defaults, thread safety.

import Foundation
@testable import FWURLSession
import Testing
import TestSupport

@Suite struct URLCredentialStorageTests {
    static func space(host: String = "api.fw.test", port: Int = 443, scheme: String? = "https", realm: String? = "r",
                      method: String = NSURLAuthenticationMethodHTTPBasic) -> URLProtectionSpace {
        URLProtectionSpace(host: host, port: port, protocol: scheme, realm: realm, authenticationMethod: method)
    }

    static let ada = URLCredential(user: "ada", password: "pw", persistence: .forSession)

    @Test func setAndRead() {
        let storage = URLCredentialStorage()
        storage.set(Self.ada, for: Self.space())
        #expect(storage.credentials(for: Self.space())?["ada"] == Self.ada)
        #expect(storage.defaultCredential(for: Self.space()) == Self.ada)
        #expect(storage.allCredentials.count == 1)
        #expect(storage.allCredentials[Self.space()]?.keys.sorted() == ["ada"])
        #expect(storage.credentials(for: Self.space(host: "other.fw.test")) == nil)
    }

    @Test(arguments: [
        (space(host: "API.FW.test"), true),                                    // host without case
        (space(port: 8443), false),
        (space(scheme: "http"), false),
        (space(realm: "other"), false),
        (space(realm: nil), false),
        (space(method: NSURLAuthenticationMethodHTTPDigest), false),
        (URLProtectionSpace(proxyHost: "api.fw.test", port: 443, type: NSURLProtectionSpaceHTTPSProxy, realm: "r",
                            authenticationMethod: NSURLAuthenticationMethodHTTPBasic), false),
    ])
    func protectionSpacesAreKeysAsInFoundation(_ other: URLProtectionSpace, _ same: Bool) {
        let storage = URLCredentialStorage()
        storage.set(Self.ada, for: Self.space())
        #expect((storage.credentials(for: other) != nil) == same, "\(other)")
    }

    @Test func setDefaultCredentialAddsAndMakesDefault() {
        let storage = URLCredentialStorage()
        let bob = URLCredential(user: "bob", password: "pw", persistence: .permanent)
        storage.set(Self.ada, for: Self.space())
        storage.setDefaultCredential(bob, for: Self.space())
        #expect(storage.defaultCredential(for: Self.space()) == bob)
        #expect(storage.credentials(for: Self.space())?.count == 2)
    }

    @Test func noneAndSynchronizableCredentialsAreNotStored() {
        let storage = URLCredentialStorage()
        storage.set(URLCredential(user: "a", password: "p", persistence: .none), for: Self.space())
        storage.setDefaultCredential(URLCredential(user: "b", password: "p", persistence: .synchronizable),
                                     for: Self.space())
        #expect(storage.allCredentials.isEmpty)
        #expect(storage.defaultCredential(for: Self.space()) == nil)
    }

    @Test func removeTakesCredentialAndDefault() {
        let storage = URLCredentialStorage()
        storage.set(Self.ada, for: Self.space())
        storage.remove(Self.ada, for: Self.space())
        #expect(storage.allCredentials.isEmpty)
        #expect(storage.defaultCredential(for: Self.space()) == nil)
    }

    @Test func removingASynchronizableCredentialNeedsTheOption() {
        let storage = URLCredentialStorage()
        let synchronizable = URLCredential(user: "ada", password: "pw", persistence: .synchronizable)
        let recorder = NotificationRecorder(.NSURLCredentialStorageChanged, object: storage)
        storage.remove(synchronizable, for: Self.space(), options: [:])
        storage.remove(synchronizable, for: Self.space(),
                       options: [NSURLCredentialStorageRemoveSynchronizableCredentials: NSNumber(value: true)])
        #expect(recorder.received == 0, "nothing was stored, so nothing changes either way")
        #expect(NSURLCredentialStorageRemoveSynchronizableCredentials
            == "NSURLCredentialStorageRemoveSynchronizableCredentials")
    }

    @Test func anIdentityCredentialIsOnlyADefault() throws {
        let storage = URLCredentialStorage()
        let identity = URLCredential(identity: try URLCredentialTests.clientIdentity(), certificates: nil,
                                     persistence: .forSession)
        storage.set(identity, for: Self.space())
        #expect(storage.credentials(for: Self.space()) == nil)
        #expect(storage.defaultCredential(for: Self.space()) == identity)
    }

    // MARK: Notifications

    @Test func changesPostTheNotificationOncePerChange() {
        let storage = URLCredentialStorage()
        let recorder = NotificationRecorder(.NSURLCredentialStorageChanged, object: storage)
        storage.set(Self.ada, for: Self.space())
        storage.set(Self.ada, for: Self.space())                           // no change
        storage.setDefaultCredential(Self.ada, for: Self.space())          // already the default
        storage.remove(Self.ada, for: Self.space())
        storage.remove(Self.ada, for: Self.space())                        // nothing left
        #expect(recorder.received == 2)
        #expect(NSNotification.Name.NSURLCredentialStorageChanged.rawValue
            == "NSURLCredentialStorageChangedNotification")
    }

    @Test func theNotificationIsPostedOutsideTheLock() {
        let storage = URLCredentialStorage()
        let seen = LockedBox<[Int]>([])
        let token = NotificationCenter.default.addObserver(forName: .NSURLCredentialStorageChanged, object: storage,
                                                           queue: nil) { _ in
            seen.withLock { $0.append(storage.allCredentials.count) }     // would deadlock under the lock
        }
        defer { NotificationCenter.default.removeObserver(token) }
        storage.set(Self.ada, for: Self.space())
        #expect(seen.withLock { $0 } == [1])
    }

    // MARK: Instances, threads

    @Test func theSharedStorageIsASingletonAndInitMakesNewOnes() {
        #expect(URLCredentialStorage.shared === URLCredentialStorage.shared)
        #expect(URLCredentialStorage() !== URLCredentialStorage())
        #expect(URLCredentialStorage().file == nil)
    }

    @Test func concurrentUseIsSafe() async {
        let storage = URLCredentialStorage()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for step in 0..<200 {
                        let credential = URLCredential(user: "u\(worker)-\(step % 10)", password: "\(step)",
                                                       persistence: .forSession)
                        storage.set(credential, for: Self.space())
                        _ = storage.allCredentials
                        if step % 5 == 0 { storage.remove(credential, for: Self.space()) }
                    }
                }
            }
        }
        #expect((storage.credentials(for: Self.space())?.count ?? 0) <= 40)
        #expect(storage.credentials(for: Self.space())?["u0-9"]?.password == "199")
    }
}
