import Foundation
@testable import FWNetworking
import Testing

// StreamingMultipartFormData: the exact bytes of a form with every kind of part and a fixed boundary,
// its Content-Type and Content-Length, header order and quoting, file checks, and the forms it refuses.
@Suite struct StreamingMultipartFormDataTests {
    private static let boundary = "Boundary+0123456789ABCDEF"
    private static let request: URLRequest = {
        var request = URLRequest(url: URL(string: "http://h/upload")!)
        request.httpMethod = "POST"
        return request
    }()

    private func form() -> StreamingMultipartFormData {
        StreamingMultipartFormData(urlRequest: Self.request, stringEncoding: .utf8, boundary: Self.boundary)
    }

    // MARK: Layout

    @Test func everyKindOfPartLaidOutExactly() throws {
        try MultipartTestSupport.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("b.json")
            try Data(#"{"k":1}"#.utf8).write(to: file)
            let form = form()
            form.appendPart(formData: Data("value".utf8), name: "field")
            form.appendPart(fileData: Data("hello".utf8), name: "file", fileName: "a.txt", mimeType: "text/plain")
            try form.appendPart(fileURL: file, name: "doc")
            form.appendPart(inputStream: InputStream(data: Data("streamed".utf8)), length: 8, name: "s",
                            fileName: "s.bin", mimeType: "application/octet-stream")
            form.appendPart(headers: ["X-Custom": "1", "Content-Type": "text/x",
                                      "Content-Disposition": #"form-data; name="raw""#], body: Data("raw".utf8))
            form.appendPart(inputStream: InputStream(data: Data("abcdef".utf8)), length: 3,
                            headers: ["Content-Disposition": #"form-data; name="hs""#])
            let request = try form.requestByFinalizingMultipartFormData()
            let expected = [
                "--\(Self.boundary)",
                #"Content-Disposition: form-data; name="field""#, "", "value",
                "--\(Self.boundary)",
                #"Content-Disposition: form-data; name="file"; filename="a.txt""#, "Content-Type: text/plain", "",
                "hello",
                "--\(Self.boundary)",
                #"Content-Disposition: form-data; name="doc"; filename="b.json""#, "Content-Type: application/json",
                "", #"{"k":1}"#,
                "--\(Self.boundary)",
                #"Content-Disposition: form-data; name="s"; filename="s.bin""#,
                "Content-Type: application/octet-stream", "", "streamed",
                "--\(Self.boundary)",
                #"Content-Disposition: form-data; name="raw""#, "Content-Type: text/x", "X-Custom: 1", "", "raw",
                "--\(Self.boundary)",
                #"Content-Disposition: form-data; name="hs""#, "", "abc",
                "--\(Self.boundary)--", "",
            ].joined(separator: "\r\n")
            let body = try #require(request.httpBodyStream.flatMap { MultipartTestSupport.readAll($0) })
            #expect(String(decoding: body, as: UTF8.self) == expected)
            #expect(request.value(forHTTPHeaderField: "Content-Length") == String(expected.utf8.count))
            #expect(request.value(forHTTPHeaderField: "Content-Type")
                    == "multipart/form-data; boundary=\(Self.boundary)")
            #expect(request.httpBody == nil)
            #expect(request.url == Self.request.url)
        }
    }

    @Test func onePartWithAnEmptyBody() throws {
        let form = form()
        form.appendPart(formData: Data(), name: "empty")
        let request = try form.requestByFinalizingMultipartFormData()
        let expected = "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n"
            + "\r\n--\(Self.boundary)--\r\n"
        #expect(request.httpBodyStream.flatMap { MultipartTestSupport.readAll($0) } == Array(expected.utf8))
        #expect(request.value(forHTTPHeaderField: "Content-Length") == String(expected.utf8.count))
    }

    @Test func anEmptyFormLeavesTheRequestAlone() throws {
        let request = try form().requestByFinalizingMultipartFormData()
        #expect(request.httpBodyStream == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    // MARK: Headers

    @Test func namesAndFileNamesAreQuotedAsBrowsersDo() {
        #expect(StreamingMultipartFormData.contentDisposition(name: "a\"b\r\nc", fileName: "x\".txt")
                == #"form-data; name="a%22b%0D%0Ac"; filename="x%22.txt""#)
        #expect(StreamingMultipartFormData.contentDisposition(name: "日本", fileName: nil)
                == #"form-data; name="日本""#)
    }

    @Test func headersOfADictionaryComeInAFixedOrder() {
        let headers = ["b": "", "Content-Type": "", "A": "", "content-disposition": ""]
        let ordered = StreamingMultipartFormData.ordered(headers)
        #expect(ordered.map(\.name) == ["content-disposition", "Content-Type", "A", "b"])
    }

    @Test func aFileURLIsTypedByItsExtension() throws {
        try MultipartTestSupport.withTemporaryDirectory { directory in
            let form = form()
            for name in ["p.PNG", "n.unknownext", "noext"] {
                let file = directory.appendingPathComponent(name)
                try Data([1]).write(to: file)
                try form.appendPart(fileURL: file, name: "f")
            }
            #expect(form.parts.map { $0.headers[1].value } == ["image/png", "application/octet-stream",
                                                               "application/octet-stream"])
            #expect(form.parts.map { $0.headers[0].value }.last == #"form-data; name="f"; filename="noext""#)
        }
    }

    // MARK: Boundaries

    @Test func randomBoundariesHaveAFixedFormat() {
        let boundaries = (0..<50).map { _ in StreamingMultipartFormData.randomBoundary() }
        #expect(Set(boundaries).count == 50)
        for boundary in boundaries {
            #expect(boundary.count == 25 && boundary.hasPrefix("Boundary+"))
            #expect(boundary.dropFirst(9).allSatisfy { "0123456789ABCDEF".contains($0) })
        }
    }

    // MARK: Refusals

    @Test func filesThatCannotBeSentAreRefusedWhenAppended() throws {
        try MultipartTestSupport.withTemporaryDirectory { directory in
            let cases = [URL(string: "http://h/file.txt")!, directory.appendingPathComponent("missing"), directory]
            for url in cases {
                #expect {
                    try form().appendPart(fileURL: url, name: "f")
                } throws: { error in
                    let error = error as NSError
                    return error.domain == HTTPRequestSerializer.URLRequestSerializationErrorDomain
                        && error.code == NSURLErrorBadURL
                }
            }
        }
    }

    /// A form that cannot be sent, and why.
    struct Refused: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let boundary: String
        let append: @Sendable (StreamingMultipartFormData) -> Void
    }

    static let refused: [Refused] = [
        Refused(testDescription: "empty boundary", boundary: "") { $0.appendPart(formData: Data(), name: "a") },
        Refused(testDescription: "boundary of 71", boundary: String(repeating: "b", count: 71)) {
            $0.appendPart(formData: Data(), name: "a")
        },
        Refused(testDescription: "boundary with CR", boundary: "a\rb") { $0.appendPart(formData: Data(), name: "a") },
        Refused(testDescription: "boundary ending in space", boundary: "ab ") {
            $0.appendPart(formData: Data(), name: "a")
        },
        Refused(testDescription: "header name with colon", boundary: "ok") {
            $0.appendPart(headers: ["X:Y": "1"], body: Data())
        },
        Refused(testDescription: "header value with CRLF", boundary: "ok") {
            $0.appendPart(headers: ["X": "1\r\nInjected: yes"], body: Data())
        },
        Refused(testDescription: "nil stream announcing bytes", boundary: "ok") {
            $0.appendPart(inputStream: nil, length: 4, headers: nil)
        },
    ]

    @Test(arguments: refused)
    func invalidFormsAreThrownWhenFinalized(_ refused: Refused) {
        let form = StreamingMultipartFormData(urlRequest: Self.request, stringEncoding: .utf8,
                                              boundary: refused.boundary)
        refused.append(form)
        #expect {
            try form.requestByFinalizingMultipartFormData()
        } throws: { error in
            (error as NSError).domain == HTTPRequestSerializer.URLRequestSerializationErrorDomain
        }
    }

    @Test func headersTheEncodingCannotHoldAreThrown() {
        let form = StreamingMultipartFormData(urlRequest: Self.request, stringEncoding: .ascii, boundary: "ok")
        form.appendPart(formData: Data(), name: "é")
        #expect(throws: (any Error).self) { try form.requestByFinalizingMultipartFormData() }
    }

    @Test func aNilStreamOfNoBytesIsAnEmptyPart() throws {
        let form = StreamingMultipartFormData(urlRequest: Self.request, stringEncoding: .utf8, boundary: "B")
        form.appendPart(inputStream: nil, length: 0, headers: ["Content-Disposition": #"form-data; name="n""#])
        let request = try form.requestByFinalizingMultipartFormData()
        let expected = "--B\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n\r\n--B--\r\n"
        #expect(request.httpBodyStream.flatMap { MultipartTestSupport.readAll($0) } == Array(expected.utf8))
    }

    // MARK: Throttling

    @Test func throttlingCapsEveryRead() throws {
        let form = form()
        form.appendPart(fileData: Data(repeating: 7, count: 1000), name: "f", fileName: "f", mimeType: "x/y")
        form.throttleBandwidth(packetSize: 64, delay: 0)
        let stream = try #require(try form.requestByFinalizingMultipartFormData().httpBodyStream)
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var reads: [Int] = []
        while case let count = stream.read(&buffer, maxLength: buffer.count), count > 0 { reads.append(count) }
        #expect(reads.allSatisfy { $0 <= 64 })
        #expect(reads.dropLast().allSatisfy { $0 == 64 })
        #expect(UInt64(reads.reduce(0, +)) == (stream as? MultipartBodyStream)?.contentLength)
    }
}
