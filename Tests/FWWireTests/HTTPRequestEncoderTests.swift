// HTTPRequestEncoder: exact bytes for valid requests; one row per injection vector, each asserting the
// error and an untouched output buffer; chunked request bodies.

import FWWire
import Testing

/// Bytes already in the output buffer, which a rejected request must leave as they are.
private let sentinel = bytes("previous request bytes")

// MARK: - Heads

@Test("a request head, byte for byte")
func exactHead() throws {
    var buffer = sentinel
    let head = HTTPRequestHead(
        method: "GET", target: "/index.html?q=1",
        headers: ["Host": "example.com", "Accept": "*/*", "X-Empty": "", "Set-Thing": "a", "Set-Thing": "b"])
    try HTTPRequestEncoder.encodeHead(head, into: &buffer)
    let expected = "GET /index.html?q=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nX-Empty: \r\n"
        + "Set-Thing: a\r\nSet-Thing: b\r\n\r\n"
    #expect(buffer == sentinel + bytes(expected))
}

@Test("HTTP/1.0 needs no Host; absolute and asterisk forms; obs-text in values")
func otherHeads() throws {
    var buffer: [UInt8] = []
    try HTTPRequestEncoder.encodeHead(
        HTTPRequestHead(method: "OPTIONS", target: "*", version: .http1_0, headers: [:]), into: &buffer)
    #expect(buffer == bytes("OPTIONS * HTTP/1.0\r\n\r\n"))

    buffer = []
    try HTTPRequestEncoder.encodeHead(
        HTTPRequestHead(method: "GET", target: "http://h:8080/p", headers: ["Host": "h:8080", "X": "café\u{1}"]),
        into: &buffer)
    #expect(buffer == bytes("GET http://h:8080/p HTTP/1.1\r\nHost: h:8080\r\nX: café\u{1}\r\n\r\n"))
}

@Test("a Host written from a host and port goes first, as if it were the head's first field")
func headWithGivenHost() throws {
    let head = HTTPRequestHead(method: "GET", target: "/p", headers: ["Accept": "*/*", "X": "1"])
    var added = head
    added.headers.addFirst(name: "Host", value: "example.com:8080")
    var expected: [UInt8] = []
    try HTTPRequestEncoder.encodeHead(added, into: &expected)
    var buffer = sentinel
    try HTTPRequestEncoder.encodeHead(head, host: "example.com", port: 8080, into: &buffer)
    #expect(buffer == sentinel + expected)
    #expect(buffer == sentinel + bytes("GET /p HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nX: 1\r\n\r\n"))

    buffer = []
    try HTTPRequestEncoder.encodeHead(head, host: "::1", port: nil, into: &buffer)
    #expect(buffer == bytes("GET /p HTTP/1.1\r\nHost: [::1]\r\nAccept: */*\r\nX: 1\r\n\r\n"))
    buffer = []
    try HTTPRequestEncoder.encodeHead(head, host: "fe80::1", port: 0, into: &buffer)
    #expect(buffer == bytes("GET /p HTTP/1.1\r\nHost: [fe80::1]:0\r\nAccept: */*\r\nX: 1\r\n\r\n"))
}

@Test("a given Host is refused when it holds CR, LF or NUL, is empty, or the head has a Host of its own")
func givenHostRefusals() {
    let head = HTTPRequestHead(method: "GET", target: "/", headers: ["Accept": "*/*"])
    for host in ["a\r\nX-Injected: 1", "a\nb", "a\u{0}b", ""] {
        var buffer = sentinel
        #expect(throws: HTTPRequestError.invalidHeaderValue) {
            try HTTPRequestEncoder.encodeHead(head, host: host, port: 80, into: &buffer)
        }
        #expect(buffer == sentinel)
    }
    var buffer = sentinel
    #expect(throws: HTTPRequestError.invalidHeaderName) {
        try HTTPRequestEncoder.encodeHead(HTTPRequestHead(method: "GET", target: "/", headers: ["host": "a"]),
                                          host: "a", port: nil, into: &buffer)
    }
    #expect(buffer == sentinel)
    #expect(throws: HTTPRequestError.invalidTarget) {
        try HTTPRequestEncoder.encodeHead(HTTPRequestHead(method: "GET", target: "/ x", headers: [:]),
                                          host: "a", port: nil, into: &buffer)
    }
    #expect(buffer == sentinel)
}

struct InjectionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var head: HTTPRequestHead
    var error: HTTPRequestError
    var testDescription: String {
        name
    }
}

private func request(
    _ name: String, method: String = "GET", target: String = "/", version: HTTPVersion = .http1_1,
    headers: HTTPHeaders = ["Host": "h"], _ error: HTTPRequestError
) -> InjectionCase {
    InjectionCase(
        name: name, head: HTTPRequestHead(method: method, target: target, version: version, headers: headers),
        error: error)
}

private let injectionCases: [InjectionCase] = [
    // MARK: Method
    request("empty method", method: "", .invalidMethod),
    request("CR in method", method: "GE\rT", .invalidMethod),
    request("LF in method", method: "GET\n", .invalidMethod),
    request("NUL in method", method: "G\u{0}ET", .invalidMethod),
    request("SP in method", method: "GET /evil HTTP/1.1\r\nX:", .invalidMethod),
    request("delimiter in method", method: "GET(", .invalidMethod),
    request("non-ASCII in method", method: "GÉT", .invalidMethod),
    // MARK: Target
    request("empty target", target: "", .invalidTarget),
    request("CR in target", target: "/a\rb", .invalidTarget),
    request("LF in target", target: "/a HTTP/1.1\r\nInjected: 1\r\n\r\n", .invalidTarget),
    request("NUL in target", target: "/a\u{0}", .invalidTarget),
    request("SP in target", target: "/a b", .invalidTarget),
    request("HTAB in target", target: "/a\tb", .invalidTarget),
    request("DEL in target", target: "/a\u{7F}", .invalidTarget),
    // MARK: Version
    request("HTTP/2.0", version: HTTPVersion(major: 2, minor: 0), .unsupportedVersion),
    request("HTTP/1.10", version: HTTPVersion(major: 1, minor: 10), .unsupportedVersion),
    // MARK: Field names
    request("empty name", headers: ["Host": "h", "": "v"], .invalidHeaderName),
    request("CR in name", headers: ["Host": "h", "X\r": "v"], .invalidHeaderName),
    request("LF in name", headers: ["Host": "h", "X\nInjected": "v"], .invalidHeaderName),
    request("NUL in name", headers: ["Host": "h", "X\u{0}": "v"], .invalidHeaderName),
    request("SP in name", headers: ["Host": "h", "X Y": "v"], .invalidHeaderName),
    request("colon in name", headers: ["Host": "h", "X:": "v"], .invalidHeaderName),
    request("non-ASCII in name", headers: ["Host": "h", "Ä": "v"], .invalidHeaderName),
    // MARK: Field values
    request("CR in value", headers: ["Host": "h", "X": "a\rb"], .invalidHeaderValue),
    request("LF in value", headers: ["Host": "h", "X": "a\r\nInjected: 1"], .invalidHeaderValue),
    request("NUL in value", headers: ["Host": "h", "X": "a\u{0}"], .invalidHeaderValue),
    request("CR LF in Host", headers: ["Host": "h\r\nX: 1"], .invalidHeaderValue),
    // MARK: Required and conflicting fields
    request("missing Host", headers: ["Accept": "*/*"], .missingHost),
    request("both Content-Length and Transfer-Encoding",
            headers: ["Host": "h", "Content-Length": "5", "Transfer-Encoding": "chunked"], .conflictingFraming),
]

@Test("injection vectors are rejected and nothing is appended", arguments: injectionCases)
func injection(_ testCase: InjectionCase) {
    var buffer = sentinel
    #expect(throws: testCase.error) { try HTTPRequestEncoder.encodeHead(testCase.head, into: &buffer) }
    #expect(buffer == sentinel)
    #expect(throws: testCase.error) { try HTTPRequestEncoder.validate(testCase.head) }
}

// MARK: - Chunked bodies

@Test("chunks: lower-case hex size, CRLF after size and data; nothing for empty input", arguments: [
    (0, ""), (1, "1"), (10, "a"), (26, "1a"), (255, "ff"), (4096, "1000"), (70_000, "11170"),
])
func chunk(length: Int, hexSize: String) {
    let data = [UInt8](repeating: 0x78, count: length)
    var buffer = sentinel
    data.withUnsafeBytes { HTTPRequestEncoder.encodeChunk($0, into: &buffer) }
    let expected = length == 0 ? [] : bytes(hexSize + "\r\n") + data + bytes("\r\n")
    #expect(buffer == sentinel + expected)
}

@Test("last chunk with and without trailers")
func lastChunk() {
    var buffer = sentinel
    HTTPRequestEncoder.encodeLastChunk(trailers: [:], into: &buffer)
    #expect(buffer == sentinel + bytes("0\r\n\r\n"))

    buffer = []
    HTTPRequestEncoder.encodeLastChunk(trailers: ["Digest": "sha-256=abc", "X": "1"], into: &buffer)
    #expect(buffer == bytes("0\r\nDigest: sha-256=abc\r\nX: 1\r\n\r\n"))
}

@Test("trailers that would inject bytes are reported by validate and never written")
func invalidTrailers() {
    let trailers: HTTPHeaders = ["Good": "1", "Bad\r\nName": "2", "Value": "3\r\nInjected: 4", "Also-Good": "5"]
    #expect(throws: HTTPRequestError.invalidHeaderName) { try HTTPRequestEncoder.validate(trailers: trailers) }
    #expect(throws: HTTPRequestError.invalidHeaderValue) {
        try HTTPRequestEncoder.validate(trailers: ["Value": "3\r\nInjected: 4"])
    }
    #expect(throws: Never.self) { try HTTPRequestEncoder.validate(trailers: ["Good": "1"]) }

    var buffer: [UInt8] = []
    HTTPRequestEncoder.encodeLastChunk(trailers: trailers, into: &buffer)
    #expect(buffer == bytes("0\r\nGood: 1\r\nAlso-Good: 5\r\n\r\n"))
}
