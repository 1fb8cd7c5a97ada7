// HTTPURLResponse+MetadataTests.swift
//
// Metadata derived from response header fields: MIME type, text encoding, expected content length and
// suggested file name, through both initialisers.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct HTTPURLResponseMetadataTests {
    static let url = URL(string: "https://www.swift.org")!

    func response(_ fields: [String: String], url: URL = Self.url) throws -> HTTPURLResponse {
        try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    // MARK: Content-Type

    struct ContentTypeCase: Sendable, CustomTestStringConvertible {
        var contentType: String?
        var mimeType: String?
        var encoding: String?
        var testDescription: String { contentType?.debugDescription ?? "no Content-Type" }
    }

    static let contentTypeCases: [ContentTypeCase] = [
        ContentTypeCase(contentType: nil, mimeType: nil, encoding: nil),
        ContentTypeCase(contentType: "text/html", mimeType: "text/html", encoding: nil),
        ContentTypeCase(contentType: "text/HTML; charset=ISO-8859-4", mimeType: "text/html", encoding: "iso-8859-4"),
        ContentTypeCase(contentType: "Application/JSON;charset=\"UTF-8\"", mimeType: "application/json",
                        encoding: "utf-8"),
        ContentTypeCase(contentType: "text/plain; format=flowed; Charset=us-ascii", mimeType: "text/plain",
                        encoding: "us-ascii"),
        ContentTypeCase(contentType: "text/plain ; charset = utf-8 ", mimeType: "text/plain", encoding: "utf-8"),
        ContentTypeCase(contentType: "text/plain; charset=", mimeType: "text/plain", encoding: nil),
        ContentTypeCase(contentType: "text/plain; charset", mimeType: "text/plain", encoding: nil),
        ContentTypeCase(contentType: "multipart/form-data; boundary=\"a;b\"; charset=utf-8",
                        mimeType: "multipart/form-data", encoding: "utf-8"),
        ContentTypeCase(contentType: "", mimeType: nil, encoding: nil),
        ContentTypeCase(contentType: "; charset=utf-8", mimeType: nil, encoding: "utf-8"),
    ]

    @Test(arguments: contentTypeCases)
    func mimeTypeAndEncodingComeFromContentType(_ testCase: ContentTypeCase) throws {
        var fields = ["Server": "test"]
        fields["Content-Type"] = testCase.contentType
        let sut = try response(fields)
        #expect(sut.mimeType == testCase.mimeType)
        #expect(sut.textEncodingName == testCase.encoding)
    }

    @Test func contentTypeNameIsMatchedCaseInsensitively() throws {
        let sut = try response(["CONTENT-type": "text/plAIn; charset=ISO-8891-1"])
        #expect(sut.mimeType == "text/plain")
        #expect(sut.textEncodingName == "iso-8891-1")
    }

    // MARK: Content-Length

    struct LengthCase: Sendable, CustomTestStringConvertible {
        var contentLength: String?
        var expected: Int64
        var testDescription: String { contentLength?.debugDescription ?? "no Content-Length" }
    }

    static let lengthCases: [LengthCase] = [
        LengthCase(contentLength: nil, expected: -1),
        LengthCase(contentLength: "997", expected: 997),
        LengthCase(contentLength: "0", expected: 0),
        LengthCase(contentLength: "007", expected: 7),
        LengthCase(contentLength: " 42 ", expected: 42),
        LengthCase(contentLength: "9223372036854775807", expected: Int64.max),
        LengthCase(contentLength: "9223372036854775808", expected: -1),
        LengthCase(contentLength: "", expected: -1),
        LengthCase(contentLength: "abc", expected: -1),
        LengthCase(contentLength: "-5", expected: -1),
        LengthCase(contentLength: "+5", expected: -1),
        LengthCase(contentLength: "0x10", expected: -1),
        LengthCase(contentLength: "1 2", expected: -1),
        LengthCase(contentLength: "5, 5", expected: 5),
        LengthCase(contentLength: "5,5,5", expected: 5),
        LengthCase(contentLength: "5, 6", expected: -1),
        LengthCase(contentLength: "5,", expected: -1),
    ]

    @Test(arguments: lengthCases)
    func expectedLengthComesFromContentLength(_ testCase: LengthCase) throws {
        var fields = ["Transfer-Encoding": "identity"]
        fields["Content-Length"] = testCase.contentLength
        #expect(try response(fields).expectedContentLength == testCase.expected)
    }

    @Test func duplicateIdenticalContentLengthsCountOnce() throws {
        let url = try #require(URL(string: "https://example.com/"))
        let sut = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                  orderedHeaderFields: [("Content-Length", "12"), ("content-length", "12")])
        #expect(sut.expectedContentLength == 12)
    }

    @Test func otherEncodingsDoNotChangeTheExpectedLength() throws {
        let fields = ["Content-Length": "997", "Content-Encoding": "deflate", "Transfer-Encoding": "chunked"]
        #expect(try response(fields).expectedContentLength == 997)
    }

    // MARK: Suggested file name

    struct FilenameCase: Sendable, CustomTestStringConvertible {
        var disposition: String?
        var url: String
        var filename: String
        var testDescription: String { "\(disposition?.debugDescription ?? "none") at \(url)" }
    }

    static let filenameCases: [FilenameCase] = [
        FilenameCase(disposition: nil, url: "https://www.swift.org", filename: "Unknown"),
        FilenameCase(disposition: nil, url: "https://www.swift.org/", filename: "Unknown"),
        FilenameCase(disposition: nil, url: "https://example.com/d/report.pdf?x=1", filename: "report.pdf"),
        FilenameCase(disposition: "inline", url: "https://www.swift.org", filename: "Unknown"),
        FilenameCase(disposition: "inline", url: "https://example.com/a.txt", filename: "a.txt"),
        FilenameCase(disposition: "attachment; filename=\"fname.ext\"", url: "https://example.com/a.txt",
                     filename: "fname.ext"),
        FilenameCase(disposition: "attachment; filename=genome.jpeg; modification-date=\"Wed, 12 Feb 1997\";",
                     url: "https://www.swift.org", filename: "genome.jpeg"),
        FilenameCase(disposition: "attachment; filename=\";.ext\"", url: "https://www.swift.org",
                     filename: ";.ext"),
        FilenameCase(disposition: "attachment; aa=bb\\; filename=\"wrong.ext\"; filename=\"fname.ext\"; cc=dd",
                     url: "https://www.swift.org", filename: "fname.ext"),
        FilenameCase(disposition: "attachment; FILENAME=\"Upper.txt\"", url: "https://www.swift.org",
                     filename: "Upper.txt"),
        FilenameCase(disposition: "attachment; filename=\"/a/b/name\"", url: "https://www.swift.org",
                     filename: "_a_b_name"),
        FilenameCase(disposition: "attachment; filename=\"a/../b/name\"", url: "https://www.swift.org",
                     filename: "a_.._b_name"),
        FilenameCase(disposition: "attachment; filename=\"..\"", url: "https://example.com/x.bin",
                     filename: "x.bin"),
        FilenameCase(disposition: "attachment; filename=\"/\"", url: "https://www.swift.org",
                     filename: "Unknown"),
        FilenameCase(disposition: "attachment; filename=\"\"", url: "https://example.com/x.bin",
                     filename: "x.bin"),
        FilenameCase(disposition: "attachment; filename", url: "https://example.com/x.bin", filename: "x.bin"),
        FilenameCase(disposition: "attachment; filename=\"plain.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt",
                     url: "https://www.swift.org", filename: "€ rates.txt"),
        FilenameCase(disposition: "attachment; filename*=utf-8'en'caf%C3%A9.txt; filename=cafe.txt",
                     url: "https://www.swift.org", filename: "café.txt"),
        FilenameCase(disposition: "attachment; filename*=UTF-8''%2Fetc%2Fpasswd", url: "https://www.swift.org",
                     filename: "_etc_passwd"),
        FilenameCase(disposition: "attachment; filename*=UTF-8''bad%ZZ; filename=fallback.txt",
                     url: "https://www.swift.org", filename: "fallback.txt"),
        FilenameCase(disposition: "attachment; filename*=Shift_JIS''%82%A0", url: "https://example.com/u.bin",
                     filename: "u.bin"),
    ]

    @Test(arguments: filenameCases)
    func suggestedFilenameFollowsContentDispositionThenURL(_ testCase: FilenameCase) throws {
        let url = try #require(URL(string: testCase.url))
        var fields: [String: String] = [:]
        fields["Content-Disposition"] = testCase.disposition
        #expect(try response(fields, url: url).suggestedFilename == testCase.filename)
    }

    // MARK: Both initialisers agree

    @Test func orderedInitialiserDerivesTheSameMetadata() throws {
        let url = try #require(URL(string: "https://example.com/dl"))
        let ordered = [
            (name: "content-type", value: "Text/CSV; charset=UTF-8"),
            (name: "Content-Length", value: "10"),
            (name: "content-disposition", value: "attachment; filename=data.csv"),
        ]
        let fromOrdered = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                          orderedHeaderFields: ordered)
        let fields = Dictionary(uniqueKeysWithValues: ordered.map { ($0.name, $0.value) })
        let fromDictionary = try response(fields, url: url)
        for sut in [fromOrdered, fromDictionary] {
            #expect(sut.mimeType == "text/csv")
            #expect(sut.textEncodingName == "utf-8")
            #expect(sut.expectedContentLength == 10)
            #expect(sut.suggestedFilename == "data.csv")
        }
    }
}
