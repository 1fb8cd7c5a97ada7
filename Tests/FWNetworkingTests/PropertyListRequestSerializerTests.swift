import Foundation
import FWNetworking
import Testing

// PropertyListRequestSerializer: the exact XML body, a binary body that reads back, its Content-Type,
// parameters in the URL for GET/HEAD/DELETE, and what a property list cannot hold (or Foundation cannot
// write) thrown as serialization errors.
@Suite struct PropertyListRequestSerializerTests {
    @Test func bodyIsAnXMLPropertyList() throws {
        let request = try PropertyListRequestSerializer().request(method: "POST", urlString: "http://h/",
                                                                  parameters: ["a": 1, "b": ["x", true]])
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<integer>1</integer>
            \t<key>b</key>
            \t<array>
            \t\t<string>x</string>
            \t\t<true/>
            \t</array>
            </dict>
            </plist>

            """
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == expected)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-plist")
    }

    @Test func binaryBodiesReadBack() throws {
        let serializer = PropertyListRequestSerializer(format: .binary, writeOptions: 0)
        #expect(serializer.format == .binary)
        let request = try serializer.request(method: "PUT", urlString: "http://h/",
                                             parameters: ["d": Data([1, 2]), "n": 2.5])
        let body = try #require(request.httpBody)
        #expect(body.prefix(8) == Data("bplist00".utf8))
        let decoded = try PropertyListSerialization.propertyList(from: body, format: nil) as? [String: Any]
        #expect(decoded?["d"] as? Data == Data([1, 2]))
        #expect(decoded?["n"] as? Double == 2.5)
    }

    @Test(arguments: ["GET", "HEAD", "DELETE"])
    func uriMethodsGetAQueryString(method: String) throws {
        let request = try PropertyListRequestSerializer().request(method: method, urlString: "http://h/",
                                                                  parameters: ["a": "b c"])
        #expect(request.url?.absoluteString == "http://h/?a=b%20c")
        #expect(request.httpBody == nil)
    }

    @Test func nilParametersLeaveNoBody() throws {
        let request = try PropertyListRequestSerializer().request(method: "POST", urlString: "http://h/",
                                                                  parameters: nil)
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-plist")
    }

    @Test func openStepAndInvalidObjectsAreThrownNotTrapped() {
        let openStep = PropertyListRequestSerializer()
        openStep.format = .openStep
        let cases: [(PropertyListRequestSerializer, Any)] = [
            (openStep, ["a": "b"]),
            (PropertyListRequestSerializer(), ["a": NSNull()]),
            (PropertyListRequestSerializer(), ["u": URL(string: "http://h/")!]),
            (PropertyListRequestSerializer(), [1: "a"]),
        ]
        for (serializer, parameters) in cases {
            do {
                _ = try serializer.request(method: "POST", urlString: "http://h/", parameters: parameters)
                Issue.record("no error for \(parameters)")
            } catch {
                #expect((error as NSError).domain == HTTPRequestSerializer.URLRequestSerializationErrorDomain)
                #expect((error as NSError).code == NSURLErrorCannotDecodeContentData)
            }
        }
    }
}
