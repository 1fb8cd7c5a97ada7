import Foundation
@testable import FWURLSession
import Testing

// Responses' secure coding: a keyed archive brings every property back (an HTTP response's fields in
// their order and spelling, and what is derived from them); an archive that is not a response's decodes
// to nil, never a trap.
@Suite struct URLResponseCodingTests {
    static func archive<T: URLResponse>(_ response: T) throws -> T? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: response, requiringSecureCoding: true)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        let back = unarchiver.decodeObject(of: T.self, forKey: NSKeyedArchiveRootObjectKey)
        if let error = unarchiver.error { throw error }
        return back
    }

    @Test func aURLResponseComesBackWhole() throws {
        let url = URL(string: "https://example.test/files/report.pdf")!
        let response = URLResponse(url: url, mimeType: "application/pdf", expectedContentLength: 1234,
                                   textEncodingName: nil)
        let back = try #require(try Self.archive(response))
        #expect(back == response)
        #expect(back.url == url && back.mimeType == "application/pdf" && back.expectedContentLength == 1234)
        #expect(back.textEncodingName == nil && back.suggestedFilename == "report.pdf")
        #expect(URLResponse.supportsSecureCoding && HTTPURLResponse.supportsSecureCoding)
    }

    @Test func anHTTPResponseKeepsItsStatusLineAndFieldsInOrder() throws {
        let url = URL(string: "http://example.test/a")!
        let response = HTTPURLResponse(url: url, statusCode: 203, httpVersion: "HTTP/1.1", orderedHeaderFields: [
            (name: "content-type", value: "text/html; charset=ISO-8859-1"),
            (name: "Set-Cookie", value: "a=1"),
            (name: "Content-Length", value: "42"),
            (name: "set-cookie", value: "b=2"),
        ])
        let back = try #require(try Self.archive(response))
        #expect(back.statusCode == 203)
        #expect(back.orderedHeaderFields.map { "\($0.name): \($0.value)" }
            == ["content-type: text/html; charset=ISO-8859-1", "Set-Cookie: a=1", "Content-Length: 42",
                "set-cookie: b=2"])
        #expect(back.value(forHTTPHeaderField: "SET-COOKIE") == "a=1, b=2")
        #expect(back.allHeaderFields as? [String: String] == response.allHeaderFields as? [String: String])
        #expect(back.mimeType == "text/html" && back.textEncodingName == "iso-8859-1")
        #expect(back.expectedContentLength == 42 && back == response)
    }

    @Test func aResponseMadeFromADictionaryComesBack() throws {
        let url = URL(string: "http://example.test/")!
        let response = try #require(HTTPURLResponse(url: url, statusCode: 404, httpVersion: nil,
                                                    headerFields: ["X-Trace": "abc"]))
        let back = try #require(try Self.archive(response))
        #expect(back.statusCode == 404 && back.value(forHTTPHeaderField: "x-trace") == "abc")
    }

    @Test func anArchiveOfSomethingElseIsNotAResponse() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSURLRequest(url: URL(string: "http://a.test/")!),
                                                    requiringSecureCoding: true)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        #expect(HTTPURLResponse(coder: unarchiver) == nil)
        #expect(URLResponse(coder: unarchiver) == nil)
    }
}
