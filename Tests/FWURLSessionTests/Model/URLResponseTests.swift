// URLResponseTests.swift
//
// URLResponse: initialiser, suggested file name from the URL, copying and equality.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct URLResponseTests {
    // MARK: Initialisation

    @Test func initStoresTheMetadata() throws {
        let url = try #require(URL(string: "https://example.com/files/report.pdf"))
        let response = URLResponse(url: url, mimeType: "application/pdf", expectedContentLength: 1234,
                                   textEncodingName: nil)
        #expect(response.url == url)
        #expect(response.mimeType == "application/pdf")
        #expect(response.expectedContentLength == 1234)
        #expect(response.textEncodingName == nil)
        #expect(response.suggestedFilename == "report.pdf")
    }

    struct FilenameCase: Sendable, CustomTestStringConvertible {
        var url: String
        var filename: String
        var testDescription: String { url }
    }

    static let filenameCases: [FilenameCase] = [
        FilenameCase(url: "https://example.com/a/b.txt", filename: "b.txt"),
        FilenameCase(url: "https://example.com/a/dir/", filename: "dir"),
        FilenameCase(url: "https://example.com/a%20b.txt?x=1#f", filename: "a b.txt"),
        FilenameCase(url: "https://example.com", filename: "Unknown"),
        FilenameCase(url: "https://example.com/", filename: "Unknown"),
        FilenameCase(url: "https://example.com/a/..", filename: "Unknown"),
    ]

    @Test(arguments: filenameCases)
    func suggestedFilenameComesFromTheLastPathComponent(_ testCase: FilenameCase) throws {
        let url = try #require(URL(string: testCase.url))
        let response = URLResponse(url: url, mimeType: nil, expectedContentLength: -1, textEncodingName: nil)
        #expect(response.suggestedFilename == testCase.filename)
    }

    // MARK: Copying

    @Test func copyReturnsTheSameImmutableInstance() throws {
        let url = try #require(URL(string: "https://example.com/"))
        let response = URLResponse(url: url, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        #expect(response.copy() as AnyObject === response)
        #expect(response.copy(with: nil) as AnyObject === response)
    }

    // MARK: Equality

    @Test func equalityComparesURLLengthTypeAndEncoding() throws {
        let url = try #require(URL(string: "https://example.com/x"))
        func make(_ type: String?, _ length: Int, _ encoding: String?) -> URLResponse {
            URLResponse(url: url, mimeType: type, expectedContentLength: length, textEncodingName: encoding)
        }
        let base = make("text/plain", 3, "utf-8")
        #expect(base.isEqual(make("text/plain", 3, "utf-8")))
        #expect(base.hash == make("text/plain", 3, "utf-8").hash)
        #expect(!base.isEqual(make("text/html", 3, "utf-8")))
        #expect(!base.isEqual(make("text/plain", 4, "utf-8")))
        #expect(!base.isEqual(make("text/plain", 3, nil)))
        #expect(!base.isEqual("not a response"))
        let otherURL = try #require(URL(string: "https://example.com/y"))
        #expect(!base.isEqual(URLResponse(url: otherURL, mimeType: "text/plain", expectedContentLength: 3,
                                          textEncodingName: "utf-8")))
    }

    @Test func responsesCrossTasks() async throws {
        let url = try #require(URL(string: "https://example.com/a.bin"))
        let response = URLResponse(url: url, mimeType: nil, expectedContentLength: 5, textEncodingName: nil)
        let length = await Task.detached { response.expectedContentLength }.value
        #expect(length == 5)
    }
}
