// HTTPURLResponseTests.swift
//
// HTTPURLResponse: status, the wire view of the fields, FoundationNetworking's combined and
// canonicalised allHeaderFields, case-insensitive lookup, copying and description.

import Foundation
import FWTransport
import Testing
@testable import FWURLSession

@Suite struct HTTPURLResponseTests {
    let url = URL(string: "https://www.swift.org")!

    func wire(_ fields: [(name: String, value: String)], status: Int = 200) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", orderedHeaderFields: fields)
    }

    func strings(_ fields: [AnyHashable: Any]) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in fields {
            if let key = key as? String, let value = value as? String {
                result[key] = value
            }
        }
        return result
    }

    // MARK: Public initialiser

    @Test func publicInitialiserStoresStatusAndURL() throws {
        let sut = try #require(HTTPURLResponse(url: url, statusCode: 302, httpVersion: "HTTP/1.1",
                                               headerFields: ["Content-Length": "5299"]))
        #expect(sut.url == url)
        #expect(sut.statusCode == 302)
        #expect(sut.httpVersion == "HTTP/1.1")
        #expect(sut.allHeaderFields.count == 1)
    }

    @Test(arguments: [nil, [:]] as [[String: String]?])
    func noFieldsMeansAnEmptyDictionary(_ fields: [String: String]?) throws {
        let sut = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: fields))
        #expect(sut.allHeaderFields.isEmpty)
        #expect(sut.orderedHeaderFields.isEmpty)
        #expect(sut.httpVersion == nil)
        #expect(sut.mimeType == nil)
        #expect(sut.expectedContentLength == -1)
    }

    @Test func publicInitialiserListsFieldsSortedByName() throws {
        let sut = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                               headerFields: ["b": "2", "A": "1", "c": "3"]))
        #expect(sut.orderedHeaderFields.map(\.name) == ["A", "b", "c"])
        #expect(sut.orderedHeaderFields.map(\.value) == ["1", "2", "3"])
    }

    // MARK: Canonical names (FoundationNetworking's test_fieldCapitalisation)

    @Test func allHeaderFieldsCanonicalisesNamesLikeFoundationNetworking() throws {
        let fields = [
            "location": "/newLocation",
            "conTent-lenGTH": "123",
            "CONTENT-type": "text/plAIn; charset=ISO-8891-1",
            "x-extra-HEADER": "my Header",
            "X-UPPERCASE": "UPPERCASE",
            "x-lowercase": "lowercase",
            "X-mixedCASE": "MIXEDcase",
            "vary": "much",
            "www-authenticate": "Basic realm=\"x\"",
            "": "dropped",
        ]
        let sut = try #require(HTTPURLResponse(url: url, statusCode: 302, httpVersion: "HTTP/1.1",
                                               headerFields: fields))
        #expect(strings(sut.allHeaderFields) == [
            "Location": "/newLocation",
            "Content-Length": "123",
            "Content-Type": "text/plAIn; charset=ISO-8891-1",
            "x-extra-HEADER": "my Header",
            "X-UPPERCASE": "UPPERCASE",
            "x-lowercase": "lowercase",
            "X-mixedCASE": "MIXEDcase",
            "Vary": "much",
            "WWW-Authenticate": "Basic realm=\"x\"",
        ])
        #expect(sut.allHeaderFields.count == 9)
        #expect(sut.expectedContentLength == 123)
    }

    // MARK: Lookup

    @Test(arguments: ["location", "LOcation", "locATIon", "LOCATION"])
    func lookupIsCaseInsensitive(_ name: String) {
        let sut = wire([("Location", "/new"), ("x-extra-HEADER", "my Header")])
        #expect(sut.value(forHTTPHeaderField: name) == "/new")
        #expect(sut.value(forHTTPHeaderField: String(name.dropLast())) == nil)
        #expect(sut.value(forHTTPHeaderField: "X-EXTRA-header") == "my Header")
    }

    // MARK: Duplicates

    @Test func duplicatesAreJoinedWithCommaSpaceInOrder() {
        let sut = wire([
            ("Vary", "Accept"),
            ("Cache-Control", "no-cache"),
            ("vary", "Origin"),
            ("VARY", "Cookie"),
        ])
        #expect(sut.value(forHTTPHeaderField: "Vary") == "Accept, Origin, Cookie")
        #expect(strings(sut.allHeaderFields) == ["Vary": "Accept, Origin, Cookie", "Cache-Control": "no-cache"])
    }

    @Test func setCookieIsCombinedLikeEveryOtherField() {
        let sut = wire([
            ("Set-Cookie", "a=1; Path=/"),
            ("Content-Type", "text/plain"),
            ("set-cookie", "b=2; Expires=Wed, 21 Oct 2015 07:28:00 GMT"),
        ])
        let combined = "a=1; Path=/, b=2; Expires=Wed, 21 Oct 2015 07:28:00 GMT"
        #expect(sut.value(forHTTPHeaderField: "SET-COOKIE") == combined)
        #expect(strings(sut.allHeaderFields)["Set-Cookie"] == combined)
    }

    @Test func xHeadersKeepTheFirstSpellingWhenCombined() {
        let sut = wire([("x-trace", "1"), ("X-TRACE", "2")])
        #expect(strings(sut.allHeaderFields) == ["x-trace": "1, 2"])
    }

    // MARK: Wire view

    @Test func orderedFieldsKeepEverythingAsReceived() {
        let fields: [(name: String, value: String)] = [
            ("set-cookie", "a=1"),
            ("Content-Type", "text/plain"),
            ("Set-Cookie", "b=2"),
            ("x-Empty", ""),
        ]
        let sut = wire(fields, status: 404)
        #expect(sut.orderedHeaderFields.map(\.name) == ["set-cookie", "Content-Type", "Set-Cookie", "x-Empty"])
        #expect(sut.orderedHeaderFields.map(\.value) == ["a=1", "text/plain", "b=2", ""])
        #expect(sut.statusCode == 404)
        #expect(sut.httpVersion == "HTTP/1.1")
        #expect(sut.value(forHTTPHeaderField: "x-empty") == "")
    }

    // MARK: NSObject behaviour

    @Test func copyReturnsTheSameInstance() {
        let sut = wire([("A", "1")])
        #expect(sut.copy() as AnyObject === sut)
    }

    @Test func equalityIsURLResponseEquality() {
        let lhs = wire([("Content-Type", "text/plain"), ("Content-Length", "3")], status: 200)
        let rhs = wire([("content-type", "text/plain"), ("content-length", "3"), ("X-Other", "1")], status: 201)
        #expect(lhs.isEqual(rhs))
        #expect(lhs.hash == rhs.hash)
        #expect(!lhs.isEqual(wire([("Content-Type", "text/html"), ("Content-Length", "3")])))
    }

    @Test func descriptionListsURLStatusAndFields() {
        let sut = wire([("b-field", "2"), ("A-Field", "1")], status: 201)
        let text = sut.description
        #expect(text.hasPrefix("<HTTPURLResponse "))
        #expect(text.contains("{ URL: https://www.swift.org }{ status: 201, headers {\n"))
        #expect(text.contains("   \"A-Field\" = \"1\";\n   \"B-Field\" = \"2\";\n} }"))
    }

    // MARK: Subclassing

    /// A user subclass, as code written against FoundationNetworking may declare one. `@unchecked Sendable`
    /// like its superclass: it adds no stored properties.
    final class CustomResponse: HTTPURLResponse, @unchecked Sendable {
        override class func localizedString(forStatusCode statusCode: Int) -> String {
            "custom \(statusCode)"
        }

        override var mimeType: String? {
            "application/x-custom"
        }
    }

    @Test func subclassesInheritTheInitialisersAndCanOverride() throws {
        let sut = try #require(CustomResponse(url: url, statusCode: 418, httpVersion: "HTTP/1.1",
                                              headerFields: ["Content-Type": "text/plain"]))
        #expect(CustomResponse.localizedString(forStatusCode: 418) == "custom 418")
        #expect(HTTPURLResponse.localizedString(forStatusCode: 418) == "Client Error")
        #expect(sut.mimeType == "application/x-custom")
        #expect(sut.value(forHTTPHeaderField: "content-type") == "text/plain")
    }

    @Test func isAURLResponse() {
        let response: URLResponse = wire([])
        #expect(response is HTTPURLResponse)
        #expect(String(reflecting: HTTPURLResponse.self) == "FWURLSession.HTTPURLResponse")
    }

    // MARK: Derived on first use, under shared locks

    /// Wire responses derive their string fields and canonical dictionary on first use, under the mutex their
    /// address picks among a few shared ones (`StripedLocks`): many threads asking many responses at once
    /// each get the whole answer, and a response asked twice answers the same (run under ThreadSanitizer).
    @Test func responsesDeriveTheirFieldsConcurrently() {
        let head = HTTPResponseHead(version: .http1_1, status: 200, reason: "OK",
                                    headers: HTTPHeaders([("Content-Type", "text/plain"), ("X-Index", "0"),
                                                          ("Set-Cookie", "a=1"), ("set-cookie", "b=2")]))
        let responses = (0..<64).map { _ in HTTPURLResponse(url: url, head: head) }
        let answers = LockedBox<[Int: [String: String]]>([:])
        DispatchQueue.concurrentPerform(iterations: 256) { index in
            let response = responses[index % responses.count]
            let fields = strings(response.allHeaderFields)
            #expect(response.orderedHeaderFields.count == 4)
            answers.withLock { answers in
                if let earlier = answers[index % responses.count] { #expect(earlier == fields) }
                answers[index % responses.count] = fields
            }
        }
        let expected = ["Content-Type": "text/plain", "X-Index": "0", "Set-Cookie": "a=1, b=2"]
        #expect(answers.withLock { $0.count == responses.count && $0.values.allSatisfy { $0 == expected } })
    }
}
