import Foundation
@testable import FWNetworking
import Testing

// The serializer errors' domain and keys (the port's strings) and the chaining rule.
@Suite struct HTTPResponseSerializerErrorsTests {
    @Test func theDomainAndKeysAreThePortsStrings() {
        #expect(HTTPResponseSerializer.URLResponseSerializationErrorDomain
            == "site.wuyong.error.serialization.response")
        #expect(HTTPResponseSerializer.NetworkingOperationFailingURLResponseErrorKey
            == "site.wuyong.serialization.response.error.response")
        #expect(HTTPResponseSerializer.NetworkingOperationFailingURLResponseDataErrorKey
            == "site.wuyong.serialization.response.error.data")
    }

    @Test func chainingAddsACauseButNeverReplacesOne() {
        let top = NSError(domain: "top", code: 1)
        let cause = NSError(domain: "cause", code: 2)
        let chained = HTTPResponseSerializer.chaining(top, underlying: cause)
        #expect(chained.domain == "top" && chained.code == 1)
        #expect((chained.userInfo[NSUnderlyingErrorKey] as? NSError)?.domain == "cause")
        let again = HTTPResponseSerializer.chaining(chained, underlying: NSError(domain: "other", code: 3))
        #expect((again.userInfo[NSUnderlyingErrorKey] as? NSError)?.domain == "cause")
        #expect(HTTPResponseSerializer.chaining(top, underlying: nil) === top)
    }

    @Test(arguments: [
        (NSURLErrorCannotDecodeContentData, nil, true),
        (NSURLErrorBadServerResponse, NSURLErrorCannotDecodeContentData, true),
        (NSURLErrorBadServerResponse, nil, false),
    ] as [(Int, Int?, Bool)])
    func aContentTypeFailureIsFoundAnywhereInTheChain(_ code: Int, _ underlying: Int?, _ expected: Bool) throws {
        let response = try ResponseFixtures.response(500, "text/html")
        let cause = underlying.map {
            HTTPResponseSerializer.serializationError(code: $0, description: "cause", response: response, data: Data())
        }
        let error = HTTPResponseSerializer.serializationError(
            code: code, description: "top", response: response, data: Data(), underlying: cause)
        #expect(HTTPResponseSerializer.isContentTypeFailure(error) == expected)
        #expect(!HTTPResponseSerializer.isContentTypeFailure(NSError(domain: NSCocoaErrorDomain, code: -1016)))
    }
}
