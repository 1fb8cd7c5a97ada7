// URLRequestTests.swift
//
// URLRequest construction, method normalisation, body exclusivity and the timeout-precedence flag.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct URLRequestTests {
    let url = URL(string: "https://example.com/a/b?q=1")!

    // MARK: Construction

    @Test func namesResolveToThisModuleAlongsideFoundation() {
        #expect(String(reflecting: URLRequest.self) == "FWURLSession.URLRequest")
        // As in FoundationNetworking, the policy enums live on NSURLRequest and are aliased on URLRequest.
        #expect(String(reflecting: URLRequest.CachePolicy.self) == "FWURLSession.NSURLRequest.CachePolicy")
        #expect(String(reflecting: NSURLRequest.self) == "FWURLSession.NSURLRequest")
    }

    @Test func initUsesFoundationNetworkingDefaults() {
        let request = URLRequest(url: url)
        #expect(request.url == url)
        #expect(request.cachePolicy == .useProtocolCachePolicy)
        #expect(request.timeoutInterval == 60)
        #expect(!request.isTimeoutIntervalSet)
        #expect(request.mainDocumentURL == nil)
        #expect(request.networkServiceType == .default)
        #expect(request.allowsCellularAccess)
        #expect(request.allowsExpensiveNetworkAccess)
        #expect(request.allowsConstrainedNetworkAccess)
        #expect(request.httpShouldHandleCookies)
        #expect(request.httpShouldUsePipelining)
        #expect(request.httpMethod == "GET")
        #expect(request.allHTTPHeaderFields == nil)
        #expect(request.httpBody == nil)
        #expect(request.httpBodyStream == nil)
    }

    @Test func initTakesPolicyAndTimeout() {
        let request = URLRequest(url: url, cachePolicy: .returnCacheDataDontLoad, timeoutInterval: 5)
        #expect(request.cachePolicy == .returnCacheDataDontLoad)
        #expect(request.timeoutInterval == 5)
        // Given to the initialiser, the timeout takes part (issue 18, item 1): the more restrictive of it and
        // the session's applies.
        #expect(request.isTimeoutIntervalSet)
        let policyOnly = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        #expect(policyOnly.timeoutInterval == 60)
        #expect(!policyOnly.isTimeoutIntervalSet)
    }

    @Test func initStoresTheAbsoluteURL() throws {
        let base = try #require(URL(string: "http://example.com/dir/"))
        let relative = try #require(URL(string: "file.txt", relativeTo: base))
        let request = URLRequest(url: relative)
        #expect(request.url?.absoluteString == "http://example.com/dir/file.txt")
        #expect(request.url?.baseURL == nil)
    }

    @Test func urlCanBeReplacedAndCleared() {
        var request = URLRequest(url: url)
        request.url = URL(string: "http://other.example/")
        #expect(request.url?.host == "other.example")
        request.url = nil
        #expect(request.url == nil)
    }

    // MARK: Timeout precedence

    @Test func settingTheTimeoutMarksItAsSetEvenToTheDefault() {
        var request = URLRequest(url: url)
        request.timeoutInterval = 60
        #expect(request.isTimeoutIntervalSet)
        #expect(request.timeoutInterval == 60)
    }

    // MARK: Method

    struct MethodCase: Sendable, CustomTestStringConvertible {
        var input: String?
        var stored: String
        var testDescription: String { input?.debugDescription ?? "nil" }
    }

    static let methodCases: [MethodCase] = [
        MethodCase(input: nil, stored: "GET"),
        MethodCase(input: "get", stored: "GET"),
        MethodCase(input: "Head", stored: "HEAD"),
        MethodCase(input: "post", stored: "POST"),
        MethodCase(input: "pUt", stored: "PUT"),
        MethodCase(input: "delete", stored: "DELETE"),
        MethodCase(input: "connect", stored: "CONNECT"),
        MethodCase(input: "patch", stored: "patch"),
        MethodCase(input: "OPTIONS", stored: "OPTIONS"),
        MethodCase(input: "PROPFIND", stored: "PROPFIND"),
        MethodCase(input: "", stored: ""),
        MethodCase(input: "GETS", stored: "GETS"),
    ]

    @Test(arguments: methodCases)
    func methodIsNormalisedLikeFoundationNetworking(_ testCase: MethodCase) {
        var request = URLRequest(url: url)
        request.httpMethod = "TRACE"
        request.httpMethod = testCase.input
        #expect(request.httpMethod == testCase.stored)
    }

    // MARK: Body

    @Test func bodyDataAndStreamExcludeEachOther() {
        var request = URLRequest(url: url)
        let stream = InputStream(data: Data([1, 2, 3]))
        request.httpBody = Data("abc".utf8)
        #expect(request.httpBody == Data("abc".utf8))
        request.httpBodyStream = stream
        #expect(request.httpBody == nil)
        #expect(request.httpBodyStream === stream)
        request.httpBody = Data([9])
        #expect(request.httpBodyStream == nil)
        #expect(request.httpBody == Data([9]))
    }

    @Test func clearingEitherBodyPropertyRemovesTheBody() {
        var request = URLRequest(url: url)
        request.httpBodyStream = InputStream(data: Data([1]))
        request.httpBody = nil
        #expect(request.httpBodyStream == nil)
        #expect(request.body == nil)

        request.httpBody = Data([1])
        request.httpBodyStream = nil
        #expect(request.httpBody == nil)
        #expect(request.body == nil)
    }

    @Test func internalBodyExposesTheKind() {
        var request = URLRequest(url: url)
        request.httpBody = Data([7, 8])
        guard case .data(let data) = request.body else {
            Issue.record("expected a data body, got \(String(describing: request.body))")
            return
        }
        #expect(data == Data([7, 8]))
    }

    // MARK: Other properties

    @Test func plainPropertiesAreSettable() {
        var request = URLRequest(url: url)
        request.mainDocumentURL = URL(string: "https://main.example/")
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.networkServiceType = .video
        request.allowsCellularAccess = false
        request.allowsExpensiveNetworkAccess = false
        request.allowsConstrainedNetworkAccess = false
        request.httpShouldHandleCookies = false
        request.httpShouldUsePipelining = false
        #expect(request.mainDocumentURL?.host == "main.example")
        #expect(request.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(request.networkServiceType == .video)
        #expect(!request.allowsCellularAccess)
        #expect(!request.allowsExpensiveNetworkAccess)
        #expect(!request.allowsConstrainedNetworkAccess)
        #expect(!request.httpShouldHandleCookies)
        #expect(!request.httpShouldUsePipelining)
    }
}
