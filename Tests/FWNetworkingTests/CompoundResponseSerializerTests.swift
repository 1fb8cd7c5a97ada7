import Foundation
import FWNetworking
import Testing

// CompoundResponseSerializer: the first member that returns an object wins; else the compound's own
// validation and the body as Data.
@Suite struct CompoundResponseSerializerTests {
    typealias Outcome = ResponseFixtures.Outcome

    static func plist() throws -> String {
        let data = try PropertyListSerialization.data(fromPropertyList: ["k": "v"], format: .xml, options: 0)
        return String(decoding: data, as: UTF8.self)
    }

    /// status, Content-Type, body (`PLIST` stands for an XML property list), outcome; members JSON then plist.
    static let rows: [(Int, String?, String, Outcome)] = [
        (200, "application/json", #"{"a":1}"#, .object(#"{"a":1}"#)),
        (200, "application/x-plist", "PLIST", .object(#"{"k":"v"}"#)),
        (200, "text/html", "<p>", .object("data:<p>")),
        (200, "application/json", "{bad", .object("data:{bad")),
        (204, nil, "", .object("data:")),
        (500, "application/json", #"{"a":1}"#, .error(["S -1011"])),
        (500, "text/html", "<p>", .error(["S -1011"])),
    ]

    @Test(arguments: rows)
    func serialization(_ status: Int, _ contentType: String?, _ body: String, _ expected: Outcome) throws {
        let compound = CompoundResponseSerializer(
            responseSerializers: [JSONResponseSerializer(), PropertyListResponseSerializer()])
        let data = Data((body == "PLIST" ? try Self.plist() : body).utf8)
        let response = try ResponseFixtures.response(status, contentType)
        #expect(try ResponseFixtures.outcome(compound, response, data) == expected)
    }

    @Test func theCompoundsOwnValidationDecidesWhenNoMemberAnswers() throws {
        let compound = CompoundResponseSerializer(responseSerializers: [JSONResponseSerializer()])
        compound.acceptableStatusCodes = nil
        let failure = try ResponseFixtures.response(500, "application/json")
        #expect(try ResponseFixtures.outcome(compound, failure, Data(#"{"a":1}"#.utf8)) == .object(#"data:{"a":1}"#))
        #expect(CompoundResponseSerializer().responseSerializers.isEmpty)
        #expect(CompoundResponseSerializer().acceptableContentTypes == nil)
    }

    @Test func membersAndSettingsSurviveArchivingAndCopying() throws {
        let json = JSONResponseSerializer()
        json.removesKeysWithNullValues = true
        let compound = CompoundResponseSerializer(responseSerializers: [json, PropertyListResponseSerializer()])
        compound.acceptableStatusCodes = [200]
        let archive = try NSKeyedArchiver.archivedData(withRootObject: compound, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(
            ofClass: CompoundResponseSerializer.self, from: archive))
        let copy = try #require(compound.copy() as? CompoundResponseSerializer)
        for other in [decoded, copy] {
            #expect(other !== compound)
            #expect(other.acceptableStatusCodes == [200])
            #expect(other.responseSerializers.count == 2)
            #expect((other.responseSerializers.first as? JSONResponseSerializer)?.removesKeysWithNullValues == true)
            #expect(other.responseSerializers.last is PropertyListResponseSerializer)
        }
    }
}

// MARK: - A member that cannot be archived

/// A serializer of the caller's own that is not an NSObject: the body as text.
final class TextSerializer: URLResponseSerialization {
    func responseObject(for response: URLResponse?, data: Data) throws -> Any? {
        String(decoding: data, as: UTF8.self)
    }
}

extension CompoundResponseSerializerTests {
    @Test func aMemberOfTheCallersOwnIsTriedButNotArchived() throws {
        let compound = CompoundResponseSerializer(responseSerializers: [JSONResponseSerializer(), TextSerializer()])
        let html = try ResponseFixtures.response(200, "text/html")
        #expect(try compound.responseObject(for: html, data: Data("<p>".utf8)) as? String == "<p>")
        let archive = try NSKeyedArchiver.archivedData(withRootObject: compound, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(
            ofClass: CompoundResponseSerializer.self, from: archive))
        #expect(decoded.responseSerializers.count == 1)
        #expect(decoded.responseSerializers.first is JSONResponseSerializer)
    }
}
