import Foundation
@testable import FWURLSession
import Testing

// NSURLRequest's secure coding: a keyed archive brings every property back, except the body stream and the
// protocol properties; a plain coder is refused.
@Suite struct NSURLRequestCodingTests {
    static func archive(_ request: NSURLRequest) throws -> NSURLRequest? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        return try NSKeyedUnarchiver.unarchivedObject(ofClass: NSURLRequest.self, from: data)
    }

    @Test func aKeyedArchiveBringsEveryPropertyBack() throws {
        var value = URLRequest(url: URL(string: "https://example.test/a?b=c")!, cachePolicy: .returnCacheDataDontLoad)
        value.httpMethod = "PATCH"
        value.setValue("1", forHTTPHeaderField: "x-first")
        value.addValue("2", forHTTPHeaderField: "X-Second")
        value.httpBody = Data("body".utf8)
        value.timeoutInterval = 12
        value.mainDocumentURL = URL(string: "https://example.test/")
        value.networkServiceType = .video
        value.allowsCellularAccess = false
        value.allowsExpensiveNetworkAccess = false
        value.httpShouldUsePipelining = false
        let back = try #require(try Self.archive(value as NSURLRequest)) as URLRequest
        #expect(back == value)
        #expect(back.orderedHeaderFields.map { "\($0.name): \($0.value)" } == ["x-first: 1", "X-Second: 2"])
        #expect(back.allHTTPHeaderFields == value.allHTTPHeaderFields)
        #expect(back.httpBody == value.httpBody)
        #expect(back.timeoutInterval == 12 && back.isTimeoutIntervalSet)
        #expect(back.networkServiceType == .video && !back.httpShouldUsePipelining)
    }

    @Test func whatCannotBeArchivedIsLeftOut() throws {
        let mutable = NSMutableURLRequest(url: URL(string: "http://example.test/")!,
                                          cachePolicy: .useProtocolCachePolicy, timeoutInterval: 30)
        mutable.httpBodyStream = InputStream(data: Data("x".utf8))
        URLProtocol.setProperty("v", forKey: "k", in: mutable)
        let back = try #require(try Self.archive(mutable))
        #expect(back.httpBodyStream == nil)
        #expect(URLProtocol.property(forKey: "k", in: back as URLRequest) == nil)
        // A timeout given to the initialiser counts as set (it competes with the session's).
        #expect(back.timeoutInterval == 30 && (back as URLRequest).isTimeoutIntervalSet)
        #expect(NSURLRequest.supportsSecureCoding && NSMutableURLRequest.supportsSecureCoding)
    }

    @Test func aRequestWithoutURLSurvives() throws {
        let mutable = NSMutableURLRequest(url: URL(string: "http://example.test/")!)
        mutable.url = nil
        #expect(try Self.archive(mutable)?.url == nil)
    }
}
