import Foundation
import FWNetworking
import Testing

// JSONRequestSerializer: the exact JSON body and its Content-Type, parameters in the URL for
// GET/HEAD/DELETE, and parameters JSON cannot hold thrown as serialization errors.
@Suite struct JSONRequestSerializerTests {
    @Test func bodyIsTheJSONOfTheParameters() throws {
        let serializer = JSONRequestSerializer(writingOptions: [.sortedKeys])
        let request = try serializer.request(method: "POST", urlString: "http://h/p",
                                             parameters: ["b": [1, 2.5, true, "x/y"], "a": ["n": NSNull()]])
        #expect(request.httpBody == Data(#"{"a":{"n":null},"b":[1,2.5,true,"x\/y"]}"#.utf8))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.url?.absoluteString == "http://h/p")
        #expect(request.value(forHTTPHeaderField: "User-Agent") != nil)
    }

    @Test func writingOptionsApply() throws {
        let serializer = JSONRequestSerializer()
        serializer.writingOptions = [.sortedKeys, .withoutEscapingSlashes]
        let request = try serializer.request(method: "PUT", urlString: "http://h/", parameters: ["z": "a/b", "y": 1])
        #expect(request.httpBody == Data(#"{"y":1,"z":"a/b"}"#.utf8))
        #expect(serializer.writingOptions == [.sortedKeys, .withoutEscapingSlashes])
    }

    @Test func arraysAreValidTopLevelObjects() throws {
        let request = try JSONRequestSerializer().request(method: "POST", urlString: "http://h/", parameters: [1, "a"])
        #expect(request.httpBody == Data(#"[1,"a"]"#.utf8))
    }

    @Test func aContentTypeOfTheRequestIsKept() throws {
        var request = URLRequest(url: URL(string: "http://h/")!)
        request.httpMethod = "POST"
        request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let serialized = try JSONRequestSerializer().requestBySerializingRequest(request, parameters: ["a": 1])
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    }

    @Test func nilParametersLeaveNoBody() throws {
        let request = try JSONRequestSerializer().request(method: "POST", urlString: "http://h/", parameters: nil)
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test(arguments: ["GET", "HEAD", "DELETE"])
    func uriMethodsGetAQueryString(method: String) throws {
        let request = try JSONRequestSerializer().request(method: method, urlString: "http://h/",
                                                          parameters: ["a": [1, 2]])
        #expect(request.url?.absoluteString == "http://h/?a%5B%5D=1&a%5B%5D=2")
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    /// Parameters JSON cannot hold, built afresh per test.
    struct Invalid: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let parameters: @Sendable () -> Any
    }

    static let invalid: [Invalid] = [
        Invalid(testDescription: "a date", parameters: { ["d": Date(timeIntervalSince1970: 0)] }),
        Invalid(testDescription: "NaN", parameters: { ["x": Double.nan] }),
        Invalid(testDescription: "infinity", parameters: { [Double.infinity] }),
        Invalid(testDescription: "an integer key", parameters: { [1: "a"] }),
        Invalid(testDescription: "a bare string", parameters: { "text" }),
        Invalid(testDescription: "a URL", parameters: { ["u": URL(string: "http://h/")!] }),
        Invalid(testDescription: "Data", parameters: { ["d": Data([1])] }),
    ]

    @Test(arguments: invalid)
    func parametersJSONCannotHoldAreThrown(_ invalid: Invalid) {
        do {
            _ = try JSONRequestSerializer().request(method: "POST", urlString: "http://h/",
                                                    parameters: invalid.parameters())
            Issue.record("no error")
        } catch {
            let error = error as NSError
            #expect(error.domain == HTTPRequestSerializer.URLRequestSerializationErrorDomain)
            #expect(error.code == NSURLErrorCannotDecodeContentData)
        }
    }

    @Test func fragmentsAreAllowedWhenAsked() throws {
        let serializer = JSONRequestSerializer(writingOptions: [.fragmentsAllowed])
        #expect(try serializer.request(method: "POST", urlString: "http://h/", parameters: "text").httpBody
                == Data(#""text""#.utf8))
        #expect(throws: (any Error).self) {
            try serializer.request(method: "POST", urlString: "http://h/", parameters: Double.nan)
        }
    }
}
