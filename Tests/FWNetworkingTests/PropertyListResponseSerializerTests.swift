import Foundation
import FWNetworking
import Testing

// PropertyListResponseSerializer row by row (status × Content-Type × body), archiving and copying.
@Suite struct PropertyListResponseSerializerTests {
    typealias Outcome = ResponseFixtures.Outcome

    static func plist(_ object: Any, _ format: PropertyListSerialization.PropertyListFormat) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
    }

    /// status, Content-Type, body format (nil: the text), body text, outcome.
    static let rows: [(Int, String?, PropertyListSerialization.PropertyListFormat?, String, Outcome)] = [
        (200, "application/x-plist", .xml, "", .object(#"{"a":1,"b":["x"]}"#)),
        (200, "application/x-plist", .binary, "", .object(#"{"a":1,"b":["x"]}"#)),
        (200, "application/x-plist", nil, "{ \"k\" = ", .error(["S -1016", "NSCocoaErrorDomain 3840"])),
        // A property list cannot be empty: an empty body is an error, a 204 too.
        (200, "application/x-plist", nil, "", .error(["S -1016", "NSCocoaErrorDomain 3840"])),
        (204, nil, nil, "", .error(["S -1016", "NSCocoaErrorDomain 3840"])),
        (200, "text/xml", .xml, "", .error(["S -1016"])),
        (500, "application/x-plist", .xml, "", .error(["S -1011"])),
        (500, "application/x-plist", nil, "{ \"k\" = ", .error(["S -1016", "NSCocoaErrorDomain 3840", "S -1011"])),
        (500, "text/html", nil, "<h1>", .error(["S -1011", "S -1016"])),
    ]

    @Test(arguments: rows)
    func serialization(_ status: Int, _ contentType: String?, _ format: PropertyListSerialization.PropertyListFormat?,
                       _ text: String, _ expected: Outcome) throws {
        let body = try format.map { try Self.plist(["a": 1, "b": ["x"]], $0) } ?? Data(text.utf8)
        let response = try ResponseFixtures.response(status, contentType)
        #expect(try ResponseFixtures.outcome(PropertyListResponseSerializer(), response, body) == expected)
    }

    @Test func theDefaults() {
        let serializer = PropertyListResponseSerializer()
        #expect(serializer.acceptableContentTypes == ["application/x-plist"])
        #expect(serializer.format == .xml)
        #expect(serializer.readOptions == [])
    }

    @Test func settingsSurviveArchivingAndCopying() throws {
        let serializer = PropertyListResponseSerializer(format: .binary, readOptions: .mutableContainersAndLeaves)
        serializer.acceptableContentTypes = ["application/x-plist", "application/octet-stream"]
        let archive = try NSKeyedArchiver.archivedData(withRootObject: serializer, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(
            ofClass: PropertyListResponseSerializer.self, from: archive))
        let copy = try #require(serializer.copy() as? PropertyListResponseSerializer)
        for other in [decoded, copy] {
            #expect(other !== serializer)
            #expect(other.format == .binary)
            #expect(other.readOptions == .mutableContainersAndLeaves)
            #expect(other.acceptableContentTypes == ["application/x-plist", "application/octet-stream"])
        }
        copy.format = .openStep
        #expect(serializer.format == .binary)
    }

    @Test func anUnknownFormatDoesNotDecode() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(12345, forKey: "format")
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(PropertyListResponseSerializer(coder: unarchiver) == nil)
    }
}
