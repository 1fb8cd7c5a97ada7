import Foundation
@testable import FWURLSession
import Testing

// NSURLRequest and NSMutableURLRequest: the value they wrap, mutation through the mutable class, copies,
// equality and the description.
@Suite struct NSURLRequestTests {
    let url = URL(string: "http://example.test/a")!

    @Test func anImmutableRequestReadsItsValue() {
        let request = NSURLRequest(url: url, cachePolicy: .returnCacheDataElseLoad, timeoutInterval: 5)
        #expect(request.url == url)
        #expect(request.cachePolicy == .returnCacheDataElseLoad)
        #expect(request.timeoutInterval == 5)
        #expect(request.httpMethod == "GET")
        #expect(request.allHTTPHeaderFields == nil)
        #expect(request.httpBody == nil && request.httpBodyStream == nil)
        #expect(request.networkServiceType == .default)
        #expect(request.allowsCellularAccess && request.httpShouldHandleCookies && request.httpShouldUsePipelining)
        #expect(NSURLRequest(url: url).timeoutInterval == 60)
        #expect(request.mainDocumentURL == nil)
    }

    @Test func aMutableRequestFollowsTheValueTypesRules() {
        let request = NSMutableURLRequest(url: url)
        request.httpMethod = "post"
        request.setValue("a", forHTTPHeaderField: "x-one")
        request.addValue("b", forHTTPHeaderField: "X-One")
        request.setValue("bad\r\nInjected: 1", forHTTPHeaderField: "X-Two")
        request.httpBody = Data("body".utf8)
        request.httpBodyStream = InputStream(data: Data())
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.timeoutInterval = 9
        request.mainDocumentURL = url
        request.networkServiceType = .background
        request.allowsCellularAccess = false
        request.httpShouldHandleCookies = false
        request.httpShouldUsePipelining = false
        #expect(request.httpMethod == "POST")
        // Stored as given, as by URLRequest: a task sending it fails with badURL before a byte is written.
        #expect(request.allHTTPHeaderFields == ["X-One": "a,b", "X-Two": "bad\r\nInjected: 1"])
        #expect(request.value(forHTTPHeaderField: "X-ONE") == "a,b")
        #expect(request.httpBody == nil && request.httpBodyStream != nil)
        let value = request as URLRequest
        #expect(value.isTimeoutIntervalSet && value.timeoutInterval == 9)
        #expect(value.cachePolicy == .reloadIgnoringLocalCacheData && value.networkServiceType == .background)
        #expect(!value.allowsCellularAccess && !value.httpShouldHandleCookies && !value.httpShouldUsePipelining)
        request.allHTTPHeaderFields = ["B": "2", "a": "1"]
        request.url = nil
        request.httpMethod = nil
        #expect((request as URLRequest).orderedHeaderFields.map(\.name) == ["a", "B"])
        #expect(request.url == nil && request.httpMethod == "GET")
    }

    @Test func copiesAreImmutableAndMutableCopiesAreIndependent() throws {
        let immutable = NSURLRequest(url: url)
        #expect(immutable.copy() as AnyObject === immutable)
        let mutable = try #require(immutable.mutableCopy() as? NSMutableURLRequest)
        mutable.httpMethod = "PUT"
        #expect(immutable.httpMethod == "GET")
        let frozen = try #require(mutable.copy() as? NSURLRequest)
        #expect(!(frozen is NSMutableURLRequest))
        mutable.httpMethod = "DELETE"
        #expect(frozen.httpMethod == "PUT")
    }

    @Test func equalityAndHashFollowTheValue() {
        let a = NSMutableURLRequest(url: url)
        let b = NSURLRequest(url: url)
        #expect(a.isEqual(b) && a.hash == b.hash)
        // Header fields are not part of equality, as for URLRequest.
        a.setValue("1", forHTTPHeaderField: "X")
        #expect(a.isEqual(b))
        a.httpMethod = "POST"
        #expect(!a.isEqual(b))
        #expect(!a.isEqual("not a request"))
    }

    @Test func theDescriptionNamesTheClassAndTheURL() {
        let description = NSMutableURLRequest(url: url).description
        #expect(description.hasPrefix("<NSMutableURLRequest: 0x"))
        #expect(description.hasSuffix("> { URL: http://example.test/a }"))
    }
}
