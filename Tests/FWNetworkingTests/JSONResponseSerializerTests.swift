import Foundation
import FWNetworking
import Testing

// JSONResponseSerializer row by row (status × Content-Type × body), null removal, reading options,
// archiving and copying.
@Suite struct JSONResponseSerializerTests {
    typealias Outcome = ResponseFixtures.Outcome

    /// status, Content-Type, body, outcome with the default settings.
    static let rows: [(Int, String?, String, Outcome)] = [
        (200, "application/json", #"{"a":1,"b":[true,null]}"#, .object(#"{"a":1,"b":[true,null]}"#)),
        (200, "text/json", "[1,2]", .object("[1,2]")),
        (200, "text/javascript", #"{"x":"y"}"#, .object(#"{"x":"y"}"#)),
        (201, "application/json; charset=utf-8", "[]", .object("[]")),
        // Nothing to decode: no error.
        (204, nil, "", .object("nil")),
        (205, "application/json", "", .object("nil")),
        (200, "application/json", "", .object("nil")),
        (200, "application/json", " ", .object("nil")),
        (200, "text/html", "", .object("nil")),
        // Not JSON: the decoder's error under a content-decoding error.
        (200, "application/json", "  ", .error(["S -1016", "NSCocoaErrorDomain 3840"])),
        (200, "application/json", "{bad", .error(["S -1016", "NSCocoaErrorDomain 3840"])),
        (200, "application/json", #""text""#, .error(["S -1016", "NSCocoaErrorDomain 3840"])),
        // Unacceptable content type: thrown before decoding.
        (200, "text/html", #"{"a":1}"#, .error(["S -1016"])),
        (200, "text/plain", "{bad", .error(["S -1016"])),
        (200, nil, "{}", .error(["S -1016"])),
        // Unacceptable status: the status error, with the decoder's error between when the body is not JSON.
        (500, "application/json", #"{"error":"boom"}"#, .error(["S -1011"])),
        (500, "application/json", "", .error(["S -1011"])),
        (404, "application/json", "{bad", .error(["S -1016", "NSCocoaErrorDomain 3840", "S -1011"])),
        (500, "text/html", "<h1>boom</h1>", .error(["S -1011", "S -1016"])),
    ]

    @Test(arguments: rows)
    func serialization(_ status: Int, _ contentType: String?, _ body: String, _ expected: Outcome) throws {
        let response = try ResponseFixtures.response(status, contentType)
        #expect(try ResponseFixtures.outcome(JSONResponseSerializer(), response, Data(body.utf8)) == expected)
    }

    @Test func theDefaults() {
        let serializer = JSONResponseSerializer()
        #expect(serializer.acceptableContentTypes == ["application/json", "text/json", "text/javascript"])
        #expect(serializer.acceptableStatusCodes == IndexSet(integersIn: 200..<300))
        #expect(serializer.readingOptions == [])
        #expect(!serializer.removesKeysWithNullValues)
    }

    @Test func aBodyThatIsNotJSONKeepsTheResponseTheBodyAndTheDecoderError() throws {
        let response = try ResponseFixtures.response(200, "application/json")
        let body = Data("{bad".utf8)
        let error = try #require(throws: NSError.self) {
            try JSONResponseSerializer().responseObject(for: response, data: body)
        }
        #expect(error.code == NSURLErrorCannotDecodeContentData)
        #expect(error.localizedDescription.contains("JSON"))
        #expect(error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseErrorKey] as? HTTPURLResponse
            === response)
        #expect(error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseDataErrorKey] as? Data
            == body)
        #expect((error.userInfo[NSURLErrorFailingURLErrorKey] as? URL)?.absoluteString == ResponseFixtures.urlText)
        let decoder = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(decoder.domain == NSCocoaErrorDomain && decoder.code == 3840)
    }

    @Test(arguments: [
        (#"{"a":null,"b":[1,null,{"c":null,"d":[null]}],"e":{"f":null}}"#, #"{"b":[1,{"d":[]}],"e":{}}"#),
        ("[null,{\"a\":null},[null]]", "[{},[]]"),
        (#"{"a":1}"#, #"{"a":1}"#),
    ])
    func nullsAreRemovedAtEveryDepth(_ body: String, _ expected: String) throws {
        let serializer = JSONResponseSerializer()
        serializer.removesKeysWithNullValues = true
        let response = try ResponseFixtures.response(200, "application/json")
        #expect(try ResponseFixtures.outcome(serializer, response, Data(body.utf8)) == .object(expected))
    }

    @Test func removingNullsLeavesOtherValuesAlone() throws {
        #expect(try ResponseFixtures.text(HTTPResponseSerializer.removingKeysWithNullValues("text")) == #""text""#)
        #expect(HTTPResponseSerializer.removingKeysWithNullValues(NSNull()) is NSNull)
    }

    @Test func fragmentsNeedTheReadingOption() throws {
        let serializer = JSONResponseSerializer(readingOptions: .fragmentsAllowed)
        #expect(serializer.readingOptions == .fragmentsAllowed)
        let response = try ResponseFixtures.response(200, "text/json")
        #expect(try ResponseFixtures.outcome(serializer, response, Data(#""text""#.utf8)) == .object(#""text""#))
        #expect(try ResponseFixtures.outcome(serializer, response, Data("42".utf8)) == .object("42"))
    }

    @Test func settingsSurviveArchivingAndCopying() throws {
        let serializer = JSONResponseSerializer(readingOptions: [.fragmentsAllowed, .mutableContainers])
        serializer.removesKeysWithNullValues = true
        serializer.acceptableStatusCodes = [200, 422]
        serializer.acceptableContentTypes = ["application/problem+json"]
        let archive = try NSKeyedArchiver.archivedData(withRootObject: serializer, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: JSONResponseSerializer.self,
                                                                           from: archive))
        let copy = try #require(serializer.copy() as? JSONResponseSerializer)
        for other in [decoded, copy] {
            #expect(other !== serializer)
            #expect(other.readingOptions == [.fragmentsAllowed, .mutableContainers])
            #expect(other.removesKeysWithNullValues)
            #expect(other.acceptableStatusCodes == [200, 422])
            #expect(other.acceptableContentTypes == ["application/problem+json"])
        }
        copy.removesKeysWithNullValues = false
        #expect(serializer.removesKeysWithNullValues)
    }
}
