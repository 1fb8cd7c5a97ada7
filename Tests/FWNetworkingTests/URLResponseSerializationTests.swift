import Foundation
import FWNetworking
import Testing
import TestSupport

// The serializers on real responses: nginx serves JSON, a property list, a 204, a 500 with a JSON body
// and a text file; a plain URLSession data task fetches them and a serializer reads what arrived.
@Suite struct URLResponseSerializationTests {
    typealias Outcome = ResponseFixtures.Outcome

    private static func server() throws -> NginxServer {
        let plist = try PropertyListSerialization.data(fromPropertyList: ["name": "fw", "n": 2], format: .binary,
                                                       options: 0)
        return try NginxServer(files: [
            "data.json": Array(#"{"items":[1,null],"next":null}"#.utf8),
            "list.plist": Array(plist),
            "page.txt": Array("plain text".utf8),
        ], serverConfig: """
            location ~ \\.plist$ { types { } default_type application/x-plist; }
            location = /empty { return 204; }
            location = /fail { default_type application/json; return 500 '{"error":"boom"}'; }
            """)
    }

    enum Kind: String, Sendable { case json, nullFreeJSON, plist, compound }

    private static func serializer(_ kind: Kind) -> any URLResponseSerialization {
        switch kind {
        case .json: return JSONResponseSerializer()
        case .nullFreeJSON:
            let serializer = JSONResponseSerializer()
            serializer.removesKeysWithNullValues = true
            return serializer
        case .plist: return PropertyListResponseSerializer()
        case .compound:
            return CompoundResponseSerializer(
                responseSerializers: [JSONResponseSerializer(), PropertyListResponseSerializer()])
        }
    }

    /// method, path, serializer, outcome.
    static let rows: [(String, String, Kind, Outcome)] = [
        ("GET", "/data.json", .json, .object(#"{"items":[1,null],"next":null}"#)),
        ("GET", "/data.json", .nullFreeJSON, .object(#"{"items":[1]}"#)),
        ("HEAD", "/data.json", .json, .object("nil")),
        ("GET", "/empty", .json, .object("nil")),
        ("GET", "/fail", .json, .error(["S -1011"])),
        ("GET", "/page.txt", .json, .error(["S -1016"])),
        ("GET", "/list.plist", .plist, .object(#"{"n":2,"name":"fw"}"#)),
        ("GET", "/data.json", .plist, .error(["S -1016"])),
        ("GET", "/list.plist", .compound, .object(#"{"n":2,"name":"fw"}"#)),
        ("GET", "/page.txt", .compound, .object("data:plain text")),
        ("GET", "/fail", .compound, .error(["S -1011"])),
    ]

    @Test(arguments: rows)
    func aRealResponseIsSerialized(_ method: String, _ path: String, _ kind: Kind, _ expected: Outcome) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: try #require(URL(string: server.baseURL + path)))
        request.httpMethod = method
        let (data, response) = try await session.data(for: request)
        #expect(try ResponseFixtures.outcome(Self.serializer(kind), response, data) == expected)
    }

    @Test func aServerErrorKeepsItsJSONBodyInTheError() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(from: try #require(URL(string: server.baseURL + "/fail")))
        let error = try #require(throws: NSError.self) {
            try JSONResponseSerializer().responseObject(for: response, data: data)
        }
        let body = try #require(error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseDataErrorKey]
            as? Data)
        #expect(String(decoding: body, as: UTF8.self) == #"{"error":"boom"}"#)
        #expect((error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseErrorKey]
            as? HTTPURLResponse)?.statusCode == 500)
        #expect((error.userInfo[NSURLErrorFailingURLErrorKey] as? URL)?.path == "/fail")
    }
}
