// URLRequest+ConformancesTests.swift
//
// Equality and hashing as FoundationNetworking defines them, descriptions, mirror, Sendable.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct URLRequestConformancesTests {
    let url = URL(string: "https://example.com/path")!

    // MARK: Equality

    @Test func equalRequestsHashEqually() {
        var lhs = URLRequest(url: url)
        var rhs = URLRequest(url: url)
        lhs.httpMethod = "post"
        rhs.httpMethod = "POST"
        #expect(lhs == rhs)
        #expect(lhs.hashValue == rhs.hashValue)
        #expect(Set([lhs, rhs]).count == 1)
    }

    /// Each mutation changes a property `==` compares.
    static let distinguishingMutations: [@Sendable (inout URLRequest) -> Void] = [
        { $0.url = URL(string: "https://example.com/other") },
        { $0.url = nil },
        { $0.mainDocumentURL = URL(string: "https://main.example/") },
        { $0.httpMethod = "PUT" },
        { $0.cachePolicy = .returnCacheDataElseLoad },
        { $0.httpBodyStream = InputStream(data: Data()) },
        { $0.allowsCellularAccess = false },
        { $0.allowsExpensiveNetworkAccess = false },
        { $0.allowsConstrainedNetworkAccess = false },
        { $0.httpShouldHandleCookies = false },
    ]

    @Test(arguments: distinguishingMutations.indices)
    func comparedPropertiesDistinguishRequests(_ index: Int) {
        let base = URLRequest(url: url)
        var changed = base
        Self.distinguishingMutations[index](&changed)
        #expect(base != changed)
    }

    /// Each mutation changes a property `==` ignores, as in FoundationNetworking and on Darwin.
    static let ignoredMutations: [@Sendable (inout URLRequest) -> Void] = [
        { $0.setValue("1", forHTTPHeaderField: "A") },
        { $0.httpBody = Data([1]) },
        { $0.timeoutInterval = 1 },
        { $0.networkServiceType = .background },
        { $0.httpShouldUsePipelining = false },
    ]

    @Test(arguments: ignoredMutations.indices)
    func ignoredPropertiesDoNotDistinguishRequests(_ index: Int) {
        let base = URLRequest(url: url)
        var changed = base
        Self.ignoredMutations[index](&changed)
        #expect(base == changed)
        #expect(base.hashValue == changed.hashValue)
    }

    @Test func bodyStreamsCompareByIdentity() {
        let stream = InputStream(data: Data([1]))
        var lhs = URLRequest(url: url)
        var rhs = URLRequest(url: url)
        lhs.httpBodyStream = stream
        rhs.httpBodyStream = stream
        #expect(lhs == rhs)
        #expect(lhs.hashValue == rhs.hashValue)
        rhs.httpBodyStream = InputStream(data: Data([1]))
        #expect(lhs != rhs)
    }

    // MARK: Descriptions

    @Test func descriptionIsTheURL() {
        var request = URLRequest(url: url)
        #expect(request.description == "https://example.com/path")
        #expect(request.debugDescription == "https://example.com/path")
        request.url = nil
        #expect(request.description == "url: nil")
    }

    @Test func mirrorShowsPublicProperties() {
        var request = URLRequest(url: url)
        request.httpMethod = "PATCH"
        let mirror = Mirror(reflecting: request)
        let labels = mirror.children.compactMap(\.label)
        #expect(labels.contains("allHTTPHeaderFields"))
        #expect(labels.contains("httpShouldUsePipelining"))
        #expect(!labels.contains("headerFields"))
        let method = mirror.children.first { $0.label == "httpMethod" }?.value as? String
        #expect(method == "PATCH")
    }

    // MARK: Sendable

    @Test func requestsCrossTasks() async {
        var request = URLRequest(url: url)
        request.setValue("1", forHTTPHeaderField: "A")
        let sent = request
        let value = await Task.detached { sent.value(forHTTPHeaderField: "a") }.value
        #expect(value == "1")
    }
}
