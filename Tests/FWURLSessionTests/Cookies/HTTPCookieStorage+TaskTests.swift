// HTTPCookieStorage+TaskTests.swift
//
// The task variants read the task's current request: its URL and main document URL.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPCookieStorageTaskTests {
    static func task(_ url: String, mainDocument: String? = nil) throws -> (URLSession, URLSessionTask) {
        let session = URLSession(configuration: .ephemeral)
        var request = URLRequest(url: try #require(URL(string: url)))
        request.mainDocumentURL = mainDocument.flatMap(URL.init(string:))
        return (session, session.dataTask(with: request))
    }

    static func cookie(_ name: String, domain: String) throws -> HTTPCookie {
        try #require(HTTPCookie(properties: [.name: name, .value: "v", .domain: domain, .path: "/"]))
    }

    @Test func storeCookiesUsesTheTasksURLAndPolicy() throws {
        let (session, task) = try Self.task("http://www.example.com/x", mainDocument: "http://elsewhere.org/")
        defer { session.invalidateAndCancel() }
        let storage = HTTPCookieStorage(file: nil)
        let cookies = [try Self.cookie("a", domain: "www.example.com"), try Self.cookie("b", domain: "other.com")]
        storage.storeCookies(cookies, for: task)
        #expect(storage.cookies?.map(\.name) == ["a"])
        storage.cookieAcceptPolicy = .onlyFromMainDocumentDomain
        storage.storeCookies([try Self.cookie("c", domain: "www.example.com")], for: task)
        #expect(storage.cookies?.map(\.name) == ["a"])
    }

    @Test func getCookiesForReadsTheTasksURL() async throws {
        let (session, task) = try Self.task("http://www.example.com/x")
        defer { session.invalidateAndCancel() }
        let storage = HTTPCookieStorage(file: nil)
        storage.setCookie(try Self.cookie("a", domain: "www.example.com"))
        storage.setCookie(try Self.cookie("b", domain: "other.com"))
        var delivered: [HTTPCookie]?
        storage.getCookiesFor(task) { delivered = $0 }
        #expect(delivered?.map(\.name) == ["a"])
        #expect(await storage.cookies(for: task)?.map(\.name) == ["a"])
    }
}
