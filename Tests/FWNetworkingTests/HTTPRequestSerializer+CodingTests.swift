import Foundation
import FWNetworking
import Testing

// Archiving and copying request serializers: every setting travels (headers in order, the mirrored
// properties that were set and only those, the methods, the encoding, the subclass's own settings); a
// copy keeps the query string block, an archive cannot; and the decoded serializer builds the same
// request bytes as the original.

@Suite struct HTTPRequestSerializerCodingTests {
    static func archived<T: HTTPRequestSerializer>(_ serializer: T) throws -> T {
        let data = try NSKeyedArchiver.archivedData(withRootObject: serializer, requiringSecureCoding: true)
        return try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data))
    }

    /// A serializer with every archived setting away from its default.
    static func configured<T: HTTPRequestSerializer>(_ serializer: T) -> T {
        serializer.setValue("one", forHTTPHeaderField: "X-First")
        serializer.setValue("two", forHTTPHeaderField: "X-Second")
        serializer.stringEncoding = .isoLatin1
        serializer.httpMethodsEncodingParametersInURI = ["GET", "POST"]
        serializer.timeoutInterval = 9
        serializer.cachePolicy = .reloadIgnoringLocalCacheData
        serializer.httpShouldHandleCookies = false
        return serializer
    }

    /// Whether two request bodies say the same: equal bytes, or the same JSON or property list in the same
    /// format. A binary property list's (and JSON's) key order follows a dictionary's iteration order, which
    /// differs between two dictionaries with the same keys, so equal settings need not give equal bytes.
    static func sameBody(_ one: Data?, _ other: Data?) -> Bool {
        guard let one, let other else { return one == other }
        if one == other { return true }
        if let first = try? JSONSerialization.jsonObject(with: one) as? NSObject,
           let second = try? JSONSerialization.jsonObject(with: other) as? NSObject {
            return first.isEqual(second)
        }
        var firstFormat = PropertyListSerialization.PropertyListFormat.xml
        var secondFormat = PropertyListSerialization.PropertyListFormat.xml
        guard let first = try? PropertyListSerialization.propertyList(from: one, format: &firstFormat) as? NSObject,
              let second = try? PropertyListSerialization.propertyList(from: other, format: &secondFormat) as? NSObject
        else { return false }
        return firstFormat == secondFormat && first.isEqual(second)
    }

    static func expectSameSettings(_ copy: HTTPRequestSerializer, as original: HTTPRequestSerializer) throws {
        #expect(copy !== original)
        #expect(copy.httpRequestHeaders == original.httpRequestHeaders)
        #expect(copy.stringEncoding == .isoLatin1 && copy.httpMethodsEncodingParametersInURI == ["GET", "POST"])
        #expect(copy.timeoutInterval == 9 && copy.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(!copy.httpShouldHandleCookies && copy.allowsCellularAccess)
        for method in ["POST", "PUT"] {
            let parameters: [String: Any] = ["name": "café", "n": 1]
            let made = try copy.request(method: method, urlString: "http://h/p", parameters: parameters)
            let expected = try original.request(method: method, urlString: "http://h/p", parameters: parameters)
            #expect(made.url == expected.url && sameBody(made.httpBody, expected.httpBody))
            #expect(made.allHTTPHeaderFields == expected.allHTTPHeaderFields)
            #expect(made.timeoutInterval == 9 && made.cachePolicy == .reloadIgnoringLocalCacheData)
        }
    }

    @Test func anArchiveCarriesEverySettingButTheBlock() throws {
        let original = Self.configured(HTTPRequestSerializer())
        original.setQueryStringSerialization { _, _ in "custom" }
        let decoded = try Self.archived(original)
        #expect(type(of: decoded) == HTTPRequestSerializer.self)
        let made = try decoded.request(method: "GET", urlString: "http://h/", parameters: ["k": "v"])
        #expect(made.url?.query == "k=v", "the query string block is not archived")
        original.setQueryStringSerialization(block: nil)
        try Self.expectSameSettings(decoded, as: original)
    }

    @Test func aCopyCarriesEverySettingAndTheBlock() throws {
        let original = Self.configured(HTTPRequestSerializer())
        original.setQueryStringSerialization { _, _ in "custom" }
        let copy = try #require(original.copy() as? HTTPRequestSerializer)
        let made = try copy.request(method: "GET", urlString: "http://h/", parameters: ["k": "v"])
        #expect(made.url?.query == "custom")
        try Self.expectSameSettings(copy, as: original)
    }

    @Test func aJSONSerializerKeepsItsWritingOptions() throws {
        let original = Self.configured(JSONRequestSerializer(writingOptions: [.sortedKeys, .prettyPrinted]))
        for copy in [try Self.archived(original), try #require(original.copy() as? JSONRequestSerializer)] {
            #expect(copy.writingOptions == [.sortedKeys, .prettyPrinted])
            try Self.expectSameSettings(copy, as: original)
        }
    }

    @Test func aPropertyListSerializerKeepsItsFormat() throws {
        let original = Self.configured(PropertyListRequestSerializer(format: .binary, writeOptions: 0))
        for copy in [try Self.archived(original), try #require(original.copy() as? PropertyListRequestSerializer)] {
            #expect(copy.format == .binary)
            try Self.expectSameSettings(copy, as: original)
        }
    }
}
