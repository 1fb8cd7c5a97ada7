import Foundation
import FWNetworking
import Testing
import TestSupport

// multipartFormRequest: parameters as form fields then the block's parts (exact bytes), the headers and
// length of the request, the methods and errors it refuses, and writing the body into a file.
@Suite struct HTTPRequestSerializerMultipartTests {
    @Test func parametersThenTheBlockExactly() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setValue("v", forHTTPHeaderField: "X-Default")
        let request = try serializer.multipartFormRequest(
            method: "POST", urlString: "http://h/up",
            parameters: ["b": ["y": [true, NSNull()], "x": 1], "a": Data([0xFF])]) { form in
            form.appendPart(fileData: Data("F".utf8), name: "file", fileName: "f.txt", mimeType: "text/plain")
        }
        let boundary = try MultipartTestSupport.boundary(of: request)
        func field(_ name: String, _ value: String) -> String {
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        var expected = Data(field("a", "").utf8)
        expected.insert(0xFF, at: expected.count - 2)
        expected += Data((field("b[x]", "1") + field("b[y][]", "1") + field("b[y][]", "")).utf8)
        expected += Data(("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.txt\"\r\n"
                          + "Content-Type: text/plain\r\n\r\nF\r\n--\(boundary)--\r\n").utf8)
        let body = try #require(request.httpBodyStream.flatMap { MultipartTestSupport.readAll($0) })
        #expect(Data(body) == expected)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == String(expected.count))
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "X-Default") == "v")
        #expect(request.value(forHTTPHeaderField: "User-Agent") == serializer.value(forHTTPHeaderField: "User-Agent"))
    }

    @Test func fieldValuesUseTheStringEncoding() throws {
        let serializer = HTTPRequestSerializer()
        serializer.stringEncoding = .isoLatin1
        let request = try serializer.multipartFormRequest(method: "PUT", urlString: "http://h/",
                                                          parameters: ["é": "é"], constructingBody: nil)
        let body = try #require(request.httpBodyStream.flatMap { MultipartTestSupport.readAll($0) })
        let boundary = try MultipartTestSupport.boundary(of: request)
        let head = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"é\"\r\n\r\n".utf8)
        #expect(body == head + [0xE9] + Array("\r\n--\(boundary)--\r\n".utf8))
    }

    @Test(arguments: ["GET", "HEAD", "get"])
    func methodsWithoutABodyAreRefused(method: String) {
        #expect {
            try HTTPRequestSerializer().multipartFormRequest(method: method, urlString: "http://h/", parameters: nil,
                                                             constructingBody: nil)
        } throws: { error in
            (error as NSError).domain == HTTPRequestSerializer.URLRequestSerializationErrorDomain
                && (error as NSError).code == NSURLErrorUnsupportedURL
        }
    }

    @Test func whatTheBlockThrowsIsThrown() {
        #expect {
            try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "http://h/", parameters: nil) {
                try $0.appendPart(fileURL: URL(fileURLWithPath: "/no/such/file"), name: "f")
            }
        } throws: { error in
            (error as NSError).code == NSURLErrorBadURL
        }
    }

    @Test func noPartsNoBodyStream() throws {
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "http://h/",
                                                                       parameters: [:], constructingBody: nil)
        #expect(request.httpBodyStream == nil)
    }

    // MARK: Writing the body to a file

    /// The request returned for `request` written to `file`, and the error the completion handler got.
    private func written(_ request: URLRequest, to file: URL) async -> (URLRequest?, (any Error)?) {
        let serializer = HTTPRequestSerializer()
        let returned = LockedBox<URLRequest?>(nil)
        let error: (any Error)? = await withCheckedContinuation { continuation in
            let result = serializer.request(multipartFormRequest: request, writingStreamContentsToFile: file,
                                            completionQueue: .global()) { continuation.resume(returning: $0) }
            returned.withLock { $0 = result }
            if result == nil { continuation.resume(returning: nil) }
        }
        return (returned.withLock { $0 }, error)
    }

    @Test func theBodyIsWrittenToAFileAndTheRequestKeepsItsLength() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fw-mp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("big.bin")
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try content.write(to: source)
        func makeRequest() throws -> URLRequest {
            try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "http://h/",
                                                             parameters: ["k": "v"]) {
                try $0.appendPart(fileURL: source, name: "f")
            }
        }
        let request = try makeRequest()
        let expected = try #require(request.httpBodyStream.flatMap { MultipartTestSupport.readAll($0) })
        let fresh = try makeRequest()
        let boundary = try MultipartTestSupport.boundary(of: fresh)
        let output = directory.appendingPathComponent("body")
        let (returned, error) = await written(fresh, to: output)
        #expect(error == nil)
        #expect(returned?.httpBodyStream == nil)
        #expect(returned?.value(forHTTPHeaderField: "Content-Length") == String(expected.count))
        let file = try Data(contentsOf: output)
        #expect(file.count == expected.count)
        let oldBoundary = try MultipartTestSupport.boundary(of: request)
        #expect(String(decoding: file, as: UTF8.self).replacingOccurrences(of: boundary, with: oldBoundary)
                == String(decoding: expected, as: UTF8.self))
    }

    @Test func aBodyThatFailsReportsTheError() async throws {
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "http://h/",
                                                                       parameters: nil) {
            $0.appendPart(inputStream: InputStream(data: Data("ab".utf8)), length: 10, headers: nil)
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("fw-mp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let (returned, error) = await written(request, to: output)
        #expect(returned != nil)
        #expect((error as? NSError)?.domain == HTTPRequestSerializer.URLRequestSerializationErrorDomain)
    }

    @Test func nothingToWriteOrNowhereToWriteIsNil() throws {
        let serializer = HTTPRequestSerializer()
        let withStream = try serializer.multipartFormRequest(method: "POST", urlString: "http://h/",
                                                             parameters: ["a": 1], constructingBody: nil)
        let plain = URLRequest(url: URL(string: "http://h/")!)
        let cases: [(URLRequest, URL)] = [
            (plain, URL(fileURLWithPath: "/tmp/fw-never-written")),
            (withStream, URL(string: "http://h/file")!),
            (withStream, URL(fileURLWithPath: "/no/such/directory/file")),
        ]
        for (request, url) in cases {
            #expect(serializer.request(multipartFormRequest: request, writingStreamContentsToFile: url,
                                       completionHandler: nil) == nil)
        }
    }
}
