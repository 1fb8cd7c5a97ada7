// The benchmark inputs: four realistic responses, each repeated back to back into one stream (as on a
// kept-alive connection), then cut into 64 KiB reads. Both parsers get exactly these reads.

// MARK: - One input

/// One benchmark input: a response repeated `count` times in one stream, cut into reads.
struct BenchInput {
    /// Short label for the report.
    var name: String
    /// What the input is, for the report.
    var summary: String
    /// One response, on the wire.
    var response: [UInt8]
    /// How many copies of `response` the stream holds.
    var count: Int
    /// Body bytes in one response (after de-chunking).
    var bodyBytesPerResponse: Int
    /// The whole stream: `count` copies of `response`.
    var stream: [UInt8]
    /// The stream cut into reads of `readSize` bytes (the last one shorter), each its own array.
    var reads: [[UInt8]]
    /// Where each read starts in `stream`, and its length.
    var readRanges: [Range<Int>]

    /// Repeats `response` until the stream holds at least `minimumStreamBytes` (and at least 4 copies),
    /// then cuts it into reads of `readSize` bytes.
    init(
        name: String, summary: String, response: [UInt8], bodyBytes: Int, minimumStreamBytes: Int,
        readSize: Int
    ) {
        self.name = name
        self.summary = summary
        self.response = response
        count = max(4, (minimumStreamBytes + response.count - 1) / response.count)
        bodyBytesPerResponse = bodyBytes
        var stream: [UInt8] = []
        stream.reserveCapacity(response.count * count)
        for _ in 0..<count {
            stream.append(contentsOf: response)
        }
        let ranges = stride(from: 0, to: stream.count, by: readSize).map { start in
            start..<min(start + readSize, stream.count)
        }
        self.stream = stream
        readRanges = ranges
        reads = ranges.map { Array(stream[$0]) }
    }
}

// MARK: - The four responses

/// The four inputs of the brief: (a) small JSON, (b) 16 KiB body, (c) many small chunks, (d) 1 MiB body.
enum BenchInputs {
    /// The read size both parsers are fed with.
    static let readSize = 64 * 1024

    /// Every input, in report order.
    static func all(minimumStreamBytes: Int) -> [BenchInput] {
        [
            BenchInput(
                name: "a", summary: "small JSON, 12 headers, \(json.count) B body", response: smallJSON(),
                bodyBytes: json.count, minimumStreamBytes: minimumStreamBytes, readSize: readSize),
            BenchInput(
                name: "b", summary: "16 KiB Content-Length body", response: contentLength(16 * 1024),
                bodyBytes: 16 * 1024, minimumStreamBytes: minimumStreamBytes, readSize: readSize),
            BenchInput(
                name: "c", summary: "chunked, 1000 × 32 B chunks + trailers", response: chunked(),
                bodyBytes: 1000 * 32, minimumStreamBytes: minimumStreamBytes, readSize: readSize),
            BenchInput(
                name: "d", summary: "1 MiB Content-Length body", response: contentLength(1024 * 1024),
                bodyBytes: 1024 * 1024, minimumStreamBytes: minimumStreamBytes, readSize: readSize),
        ]
    }

    /// A typical API response body (~300 bytes).
    static let json = Array(
        (#"{"id":"6f1c2a9e-3b7d-4e58-9a0c-1d2e3f4a5b6c","type":"order","status":"shipped","#
            + #""created_at":"2025-11-22T17:30:00Z","#
            + #""customer":{"id":48213,"name":"Ada Lovelace","email":"ada@example.com"},"#
            + #""items":[{"sku":"FW-1001","qty":2,"price":"19.99"},{"sku":"FW-2002","qty":1,"#
            + #""price":"5.49"}],"total":"45.47","currency":"EUR"}"#).utf8)

    /// (a) A small JSON response with the headers a CDN-fronted API typically sends.
    static func smallJSON() -> [UInt8] {
        let head = """
            HTTP/1.1 200 OK\r
            Date: Sat, 22 Nov 2025 17:30:00 GMT\r
            Content-Type: application/json; charset=utf-8\r
            Content-Length: \(json.count)\r
            Server: nginx/1.25.3\r
            Cache-Control: private, max-age=0, no-cache\r
            ETag: W/"12c-5e1f3a8b7c2d9e0f"\r
            Vary: Accept-Encoding, Origin\r
            X-Request-Id: 6f1c2a9e-3b7d-4e58-9a0c-1d2e3f4a5b6c\r
            Set-Cookie: session=8f3a9c2e7b1d4f60a5e8c3b2d1f0e9a7; Path=/; HttpOnly; Secure; SameSite=Lax\r
            Set-Cookie: csrftoken=Qm9vdHN0cmFwQ1NSRlRva2Vu; Path=/; Secure; SameSite=Strict\r
            Connection: keep-alive\r
            Strict-Transport-Security: max-age=31536000; includeSubDomains\r
            \r

            """
        return Array(head.utf8) + json
    }

    /// (b), (d) A binary download of `length` bytes with a Content-Length.
    static func contentLength(_ length: Int) -> [UInt8] {
        let head = """
            HTTP/1.1 200 OK\r
            Date: Sat, 22 Nov 2025 17:30:00 GMT\r
            Content-Type: application/octet-stream\r
            Content-Length: \(length)\r
            Server: nginx/1.25.3\r
            ETag: "\(length)-5e1f3a8b"\r
            Accept-Ranges: bytes\r
            Connection: keep-alive\r
            \r

            """
        return Array(head.utf8) + pseudoRandomBytes(length)
    }

    /// (c) A streamed response: 1000 chunks of 32 bytes, the last chunk, and two trailer fields.
    static func chunked() -> [UInt8] {
        let head = """
            HTTP/1.1 200 OK\r
            Date: Sat, 22 Nov 2025 17:30:00 GMT\r
            Content-Type: application/x-ndjson\r
            Transfer-Encoding: chunked\r
            Server: nginx/1.25.3\r
            Trailer: X-Checksum, Server-Timing\r
            Connection: keep-alive\r
            \r

            """
        var bytes = Array(head.utf8)
        let data = pseudoRandomBytes(1000 * 32)
        for chunk in 0..<1000 {
            bytes += Array("20\r\n".utf8) + data[chunk * 32..<(chunk + 1) * 32] + Array("\r\n".utf8)
        }
        bytes += Array("0\r\nX-Checksum: 5e1f3a8b7c2d9e0f\r\nServer-Timing: db;dur=53\r\n\r\n".utf8)
        return bytes
    }

    /// `count` reproducible bytes of every value (a body must be able to hold CR, LF and NUL).
    static func pseudoRandomBytes(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }
}
