import Foundation
import FWNetworking
import Testing

// HTTPResponseSerializer: validation by status code and content type, row by row (status × Content-Type
// × body), the errors' userInfo, archiving and copying.
@Suite struct HTTPResponseSerializerTests {
    typealias Outcome = ResponseFixtures.Outcome

    /// status, Content-Type, body, outcome; the serializer accepts 200–299 and application/json.
    static let jsonOnlyRows: [(Int, String?, String, Outcome)] = [
        (200, "application/json", "{}", .object("data:{}")),
        (200, "application/json; charset=utf-8", "{}", .object("data:{}")),
        (200, "Application/JSON", "{}", .object("data:{}")),
        (299, "application/json", "{}", .object("data:{}")),
        (200, "text/html", "<p>", .error(["S -1016"])),
        (200, "text/html", "", .object("data:")),
        (200, nil, "x", .error(["S -1016"])),
        (200, nil, "", .object("data:")),
        (199, "application/json", "{}", .error(["S -1011"])),
        (300, "application/json", "{}", .error(["S -1011"])),
        (404, "application/json", "{}", .error(["S -1011"])),
        (500, "text/html", "oops", .error(["S -1011", "S -1016"])),
        (500, "text/html", "", .error(["S -1011"])),
    ]

    @Test(arguments: jsonOnlyRows)
    func validation(_ status: Int, _ contentType: String?, _ body: String, _ expected: Outcome) throws {
        let serializer = HTTPResponseSerializer()
        serializer.acceptableContentTypes = ["application/json"]
        let response = try ResponseFixtures.response(status, contentType)
        #expect(try ResponseFixtures.outcome(serializer, response, Data(body.utf8)) == expected)
    }

    @Test func theDefaultsAcceptAnyContentTypeAndTheSuccessCodes() throws {
        let serializer = HTTPResponseSerializer()
        #expect(serializer.acceptableStatusCodes == IndexSet(integersIn: 200..<300))
        #expect(serializer.acceptableContentTypes == nil)
        let html = try ResponseFixtures.response(200, "text/html")
        #expect(try ResponseFixtures.outcome(serializer, html, Data("<p>".utf8)) == .object("data:<p>"))
        serializer.acceptableStatusCodes = nil
        let failure = try ResponseFixtures.response(500, "text/html")
        #expect(try ResponseFixtures.outcome(serializer, failure, Data("x".utf8)) == .object("data:x"))
    }

    @Test func onlyHTTPResponsesAreValidated() throws {
        let serializer = HTTPResponseSerializer()
        serializer.acceptableContentTypes = ["application/json"]
        let url = try #require(URL(string: "file:///tmp/x"))
        let plain = URLResponse(url: url, mimeType: "text/html", expectedContentLength: 1, textEncodingName: nil)
        #expect(try ResponseFixtures.outcome(serializer, plain, Data("x".utf8)) == .object("data:x"))
        #expect(try ResponseFixtures.outcome(serializer, nil, Data("x".utf8)) == .object("data:x"))
    }

    @Test func anErrorCarriesTheResponseTheBodyAndTheURL() throws {
        let serializer = HTTPResponseSerializer()
        serializer.acceptableContentTypes = ["application/json"]
        let response = try ResponseFixtures.response(503, "text/plain")
        let body = Data("down".utf8)
        let error = try #require(throws: NSError.self) { try serializer.validateResponse(response, data: body) }
        #expect(error.domain == "site.wuyong.error.serialization.response")
        #expect(error.code == NSURLErrorBadServerResponse)
        #expect(error.localizedDescription.contains("503"))
        #expect(error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseErrorKey] as? HTTPURLResponse
            === response)
        #expect(error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseDataErrorKey] as? Data
            == body)
        #expect((error.userInfo[NSURLErrorFailingURLErrorKey] as? URL)?.absoluteString == ResponseFixtures.urlText)
        let contentType = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(contentType.code == NSURLErrorCannotDecodeContentData)
        #expect(contentType.localizedDescription.contains("text/plain"))
        #expect(contentType.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseDataErrorKey] as? Data
            == body)
        #expect(contentType.userInfo[NSUnderlyingErrorKey] == nil)
    }

    @Test(arguments: [
        (IndexSet([200, 204]), Set(["application/json", "text/csv"])),
        (nil, nil),
        (IndexSet(integersIn: 100..<600), Set<String>()),
    ] as [(IndexSet?, Set<String>?)])
    func settingsSurviveArchivingAndCopying(_ codes: IndexSet?, _ types: Set<String>?) throws {
        let serializer = HTTPResponseSerializer()
        serializer.acceptableStatusCodes = codes
        serializer.acceptableContentTypes = types
        let archive = try NSKeyedArchiver.archivedData(withRootObject: serializer, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HTTPResponseSerializer.self,
                                                                           from: archive))
        let copy = try #require(serializer.copy() as? HTTPResponseSerializer)
        for other in [decoded, copy] {
            #expect(other !== serializer)
            #expect(other.acceptableStatusCodes == codes)
            #expect(other.acceptableContentTypes == types)
        }
        copy.acceptableStatusCodes = [418]
        #expect(serializer.acceptableStatusCodes == codes)
        #expect(HTTPResponseSerializer.supportsSecureCoding)
    }
}
