// CONFORMANCE.md "Chunked bodies": one row per rule, each run the four ways through the response parser.

import FWWire
import Testing

private let chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
private let headEvent = head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked)

/// A chunked response with `chunks` after the head that must decode to `content` and `trailers`.
private func decodes(_ name: String, _ chunks: String, _ content: String, trailers: HTTPHeaders = [:]) -> ParserCase {
    let events = content.isEmpty
        ? [headEvent, end(keepAlive: true, trailers: trailers)]
        : [headEvent, body(content), end(keepAlive: true, trailers: trailers)]
    return ParserCase(name, chunkedHead + chunks, events: events)
}

/// A chunked response with `chunks` after the head that must fail with `error` after delivering `content`.
private func fails(
    _ name: String, _ chunks: String, _ error: HTTPParseError, after content: String = "", endOfStream: Bool = false
) -> ParserCase {
    ParserCase(
        name, chunkedHead + chunks, endOfStream: endOfStream,
        events: content.isEmpty ? [headEvent] : [headEvent, body(content)], error: error)
}

private let chunkedCases: [ParserCase] = [
    // MARK: Sizes
    decodes("one chunk", "5\r\nhello\r\n0\r\n\r\n", "hello"),
    decodes("several chunks", "5\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\n\r\n", "hello world"),
    decodes("empty body", "0\r\n\r\n", ""),
    decodes("upper-case hex", "A\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
    decodes("lower-case hex", "a\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
    decodes("leading zeros", "0005\r\nhello\r\n000\r\n\r\n", "hello"),
    decodes("data holding CRLF", "4\r\n\r\n\r\n\r\n0\r\n\r\n", "\r\n\r\n"),
    // Named deviations (whitespace-before-chunk-crlf): accepted here, refused in strict mode
    // (HTTPDeviationsTests.swift).
    decodes("whitespace before the line end", "5 \t\r\nhello\r\n0\r\n\r\n", "hello"),
    decodes("whitespace before the last chunk's line end", "5\r\nhello\r\n0 \r\n\r\n", "hello"),
    fails("empty size", "\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
    fails("plus sign", "+5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
    fails("minus sign", "-5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
    fails("0x prefix", "0x5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
    fails("non-hex digit", "g\r\n", .invalidChunkSize),
    fails("leading space", " 5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
    fails("junk after whitespace", "5 x\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    fails("overflow within 16 digits", "8000000000000000\r\n", .chunkSizeTooLarge),
    fails("17 digits", "00000000000000005\r\nhello\r\n0\r\n\r\n", .chunkSizeTooLarge),

    // MARK: Extensions
    decodes("extension", "5;name=value\r\nhello\r\n0\r\n\r\n", "hello"),
    decodes("extension without value, BWS", "5 ; a ; b = c\r\nhello\r\n0\r\n\r\n", "hello"),
    decodes("quoted extension with ; \" and escapes", "5;a=\"x;\\\"y\\\\\"\r\nhello\r\n0\r\n\r\n", "hello"),
    decodes("extension on the last chunk", "5\r\nhello\r\n0;done\r\n\r\n", "hello"),
    decodes("BWS around = and before ;", "5 ;a = b ;c= \"d\" ;e\r\nhello\r\n0\r\n\r\n", "hello"),
    // Named deviation empty-chunk-extension: accepted here, refused in strict mode.
    decodes("empty extension", "5;\r\nhello\r\n0\r\n\r\n", "hello"),
    decodes("empty extension between two", "5;a;;b\r\nhello\r\n0\r\n\r\n", "hello"),
    fails("empty extension name", "5;=v\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    fails("empty extension value", "5;a=\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    // Named deviation whitespace-before-chunk-crlf: accepted here, refused in strict mode.
    decodes("whitespace after an extension", "5;a=b \r\nhello\r\n0\r\n\r\n", "hello"),
    decodes("whitespace after a name", "5;a \r\nhello\r\n0\r\n\r\n", "hello"),
    fails("junk after a quoted value", "5;a=\"b\"c\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    fails("a second = ", "5;a=b=c\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    fails("NUL in an extension", "5;a\u{0}\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    fails("delimiter in an extension", "5;a@b\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    fails("CR inside a quoted extension", "5;a=\"x\r\n\"\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    fails("LF inside a quoted extension", "5;a=\"x\ny\"\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),
    fails("CTL after a backslash", "5;a=\"\\\u{1}\"\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension),

    // MARK: Data terminator
    decodes("LF alone after data", "5\r\nhello\n0\r\n\r\n", "hello"),
    fails("junk after data", "5\r\nhelloX\r\n0\r\n\r\n", .invalidChunkTerminator, after: "hello"),
    fails("CR then junk after data", "5\r\nhello\rX0\r\n\r\n", .invalidChunkTerminator, after: "hello"),
    fails("data longer than its size", "3\r\nhello\r\n0\r\n\r\n", .invalidChunkTerminator, after: "hel"),

    // MARK: Trailers
    decodes("trailers kept", "5\r\nhello\r\n0\r\nX-Sum: abc\r\nX-Two: 2\r\n\r\n", "hello",
            trailers: ["X-Sum": "abc", "X-Two": "2"]),

    // MARK: Premature close: never a short body
    fails("close before the first size", "", .unexpectedEndOfStream, endOfStream: true),
    fails("close inside a size", "1", .unexpectedEndOfStream, endOfStream: true),
    fails("close inside an extension", "5;a=\"x", .unexpectedEndOfStream, endOfStream: true),
    fails("close inside data", "5\r\nhel", .unexpectedEndOfStream, after: "hel", endOfStream: true),
    fails("close before data CRLF", "5\r\nhello", .unexpectedEndOfStream, after: "hello", endOfStream: true),
    fails("close after the last chunk", "5\r\nhello\r\n0\r\n", .unexpectedEndOfStream, after: "hello",
          endOfStream: true),
    fails("close inside trailers", "0\r\nX: 1\r\n", .unexpectedEndOfStream, endOfStream: true),
]

@Test("chunked bodies", arguments: chunkedCases)
func chunkedBodies(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}

@Test("a chunked body the request encoder wrote decodes back to the same bytes and trailers")
func encoderRoundTrip() throws {
    let content = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    var wire = bytes(chunkedHead)
    for start in stride(from: 0, to: content.count, by: 777) {
        content[start..<min(start + 777, content.count)].withUnsafeBytes {
            HTTPRequestEncoder.encodeChunk($0, into: &wire)
        }
    }
    HTTPRequestEncoder.encodeLastChunk(trailers: ["Digest": "sha-256=x"], into: &wire)
    let testCase = ParserCase(
        "round trip", wire,
        events: [headEvent, .body(content), end(keepAlive: true, trailers: ["Digest": "sha-256=x"])])
    let outcome = ParserHarness.run(testCase, chunks: [wire]).outcome
    #expect(outcome == ParserHarness.Outcome(events: testCase.events))
}
