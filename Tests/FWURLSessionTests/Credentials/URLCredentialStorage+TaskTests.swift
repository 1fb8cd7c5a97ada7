// URLCredentialStorage+TaskTests.swift
//
// The task variants behave as their task-less forms.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct URLCredentialStorageTaskTests {
    static let space = URLProtectionSpace(host: "api.fw.test", port: 443, protocol: "https", realm: nil,
                                          authenticationMethod: NSURLAuthenticationMethodHTTPBasic)

    @Test func taskVariantsForwardToTheStorage() async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URLRequest(url: try #require(URL(string: "https://api.fw.test/"))))
        let storage = URLCredentialStorage()
        let ada = URLCredential(user: "ada", password: "pw", persistence: .forSession)
        let bob = URLCredential(user: "bob", password: "pw", persistence: .forSession)

        storage.set(ada, for: Self.space, task: task)
        storage.setDefaultCredential(bob, for: Self.space, task: task)
        var users: [String: URLCredential]?
        storage.getCredentials(for: Self.space, task: task) { users = $0 }
        #expect(users?.keys.sorted() == ["ada", "bob"])
        var preferred: URLCredential?
        storage.getDefaultCredential(for: Self.space, task: task) { preferred = $0 }
        #expect(preferred == bob)
        #expect(await storage.credentials(for: Self.space, task: task).count == 2)
        #expect(await storage.defaultCredential(for: Self.space, task: task) == bob)

        storage.remove(bob, for: Self.space, options: nil, task: task)
        #expect(storage.credentials(for: Self.space)?.keys.sorted() == ["ada"])
        #expect(storage.defaultCredential(for: Self.space) == nil)
        storage.remove(ada, for: Self.space, task: task)
        #expect(await storage.credentials(for: Self.space, task: task).isEmpty)
    }
}
