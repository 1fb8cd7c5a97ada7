import Foundation
@testable import FWURLSession
import Testing

// URLRequest bridges to NSURLRequest as with FoundationNetworking: coercions both ways, dynamic casts,
// `ReferenceType`, and copies that do not share mutations.
@Suite struct URLRequestBridgingTests {
    @Test func coercionsAndCastsBridgeBothWays() throws {
        var request = URLRequest(url: URL(string: "http://example.test/")!)
        request.httpMethod = "PUT"
        let reference = request as NSURLRequest
        #expect(type(of: reference) == NSURLRequest.self)
        #expect(reference.httpMethod == "PUT")
        let anyValue: Any = request
        #expect((anyValue as? NSURLRequest)?.httpMethod == "PUT")
        let anyReference: Any = NSMutableURLRequest(url: URL(string: "http://example.test/m")!)
        #expect((anyReference as? URLRequest)?.url?.path == "/m")
        #expect(URLRequest.ReferenceType.self == NSURLRequest.self)
        #expect(ObjectIdentifier(URLRequest._getObjectiveCType()) == ObjectIdentifier(NSURLRequest.self))
    }

    @Test func bridgedCopiesAreIndependent() {
        let mutable = NSMutableURLRequest(url: URL(string: "http://example.test/")!)
        var value = mutable as URLRequest
        mutable.httpMethod = "POST"
        value.httpMethod = "DELETE"
        #expect(value.httpMethod == "DELETE")
        #expect(mutable.httpMethod == "POST")
        #expect(URLRequest._unconditionallyBridgeFromObjectiveC(mutable).httpMethod == "POST")
    }
}
