// Every limit at its boundary: exactly at the limit passes, one over fails (each row run the four ways,
// with small limits so the byte-by-byte and every-split runs stay fast).

import FWWire
import Testing

@Test("default limits")
func defaultLimits() {
    let limits = HTTPLimits()
    #expect(limits.maxLineLength == 65_536)
    #expect(limits.maxHeadSize == 262_144)
    #expect(limits.maxHeaderCount == 1000)
    #expect(limits.maxChunkSizeDigits == 16)
    #expect(limits.maxChunkExtensionLength == 4096)
    #expect(limits.maxTrailerSize == 65_536)
    #expect(limits.maxInterimResponses == 16)
    #expect(limits.maxCollectedBodySize == 536_870_912)
    #expect(limits.maxDecompressionRatio == 100)
}

// MARK: - Boundary rows

private func limits(_ change: (inout HTTPLimits) -> Void) -> HTTPLimits {
    var limits = HTTPLimits()
    change(&limits)
    return limits
}

private func repeated(_ count: Int) -> String {
    String(repeating: "a", count: count)
}

private let chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
private let chunkedHeadEvent = head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked)

/// A 204 response with the given field lines.
private func noContent(_ fieldLines: String, reason: String = "X") -> String {
    "HTTP/1.1 204 \(reason)\r\n\(fieldLines)\r\n"
}

/// The pair of rows for one limit: `passing` must be accepted with `events`, `failing` rejected with `error`.
private func boundary(
    _ name: String, _ limits: HTTPLimits, passing: String, events: [HTTPResponseEvent],
    failing: String, error: HTTPParseError, eventsBeforeError: [HTTPResponseEvent] = []
) -> [ParserCase] {
    [
        ParserCase("\(name): at the limit", passing, limits: limits, events: events),
        ParserCase("\(name): one over", failing, limits: limits, events: eventsBeforeError, error: error),
    ]
}

private let lineLimit = limits { $0.maxLineLength = 40 }

private let boundaryCases: [ParserCase] = [
    // "HTTP/1.1 204 " is 13 bytes; the reason fills the line to 40.
    boundary(
        "status line length", lineLimit,
        passing: noContent("", reason: repeated(27)),
        events: [head(204, repeated(27), framing: .none), end(keepAlive: true)],
        failing: noContent("", reason: repeated(28)), error: .headerLineTooLong),
    // "X: " is 3 bytes; the value fills the line to 40.
    boundary(
        "field line length", lineLimit,
        passing: noContent("X: \(repeated(37))\r\n"),
        events: [head(204, "X", ["X": repeated(37)], framing: .none), end(keepAlive: true)],
        failing: noContent("X: \(repeated(38))\r\n"), error: .headerLineTooLong),
    boundary(
        "trailer line length", lineLimit,
        passing: chunkedHead + "0\r\nT: \(repeated(37))\r\n\r\n",
        events: [chunkedHeadEvent, end(keepAlive: true, trailers: ["T": repeated(37)])],
        failing: chunkedHead + "0\r\nT: \(repeated(38))\r\n\r\n", error: .headerLineTooLong,
        eventsBeforeError: [chunkedHeadEvent]),
    // One digit and 39 extension bytes.
    boundary(
        "chunk-size line length", lineLimit,
        passing: chunkedHead + "0;\(repeated(38))\r\n\r\n",
        events: [chunkedHeadEvent, end(keepAlive: true)],
        failing: chunkedHead + "0;\(repeated(39))\r\n\r\n", error: .headerLineTooLong,
        eventsBeforeError: [chunkedHeadEvent]),
    // Status line (16 bytes with CRLF) plus one field line of 5 + n bytes; the blank line is not counted.
    boundary(
        "head size", limits { $0.maxHeadSize = 100 },
        passing: noContent("X: \(repeated(79))\r\n"),
        events: [head(204, "X", ["X": repeated(79)], framing: .none), end(keepAlive: true)],
        failing: noContent("X: \(repeated(80))\r\n"), error: .headTooLarge),
    boundary(
        "head size, status line alone", limits { $0.maxHeadSize = 16 },
        passing: noContent(""),
        events: [head(204, "X", framing: .none), end(keepAlive: true)],
        failing: noContent("", reason: "XY"), error: .headTooLarge),
    boundary(
        "field count", limits { $0.maxHeaderCount = 3 },
        passing: noContent("A: 1\r\nB: 2\r\n C\r\nD: 3\r\n"),
        events: [head(204, "X", ["A": "1", "B": "2 C", "D": "3"], framing: .none), end(keepAlive: true)],
        failing: noContent("A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n"), error: .tooManyHeaders),
    boundary(
        "trailer count", limits { $0.maxHeaderCount = 2 },
        passing: chunkedHead + "0\r\nA: 1\r\nB: 2\r\n\r\n",
        events: [chunkedHeadEvent, end(keepAlive: true, trailers: ["A": "1", "B": "2"])],
        failing: chunkedHead + "0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", error: .tooManyHeaders,
        eventsBeforeError: [chunkedHeadEvent]),
    boundary(
        "chunk size digits (default 16)", HTTPLimits(),
        passing: chunkedHead + "0000000000000002\r\nok\r\n0\r\n\r\n",
        events: [chunkedHeadEvent, body("ok"), end(keepAlive: true)],
        failing: chunkedHead + "00000000000000002\r\nok\r\n0\r\n\r\n", error: .chunkSizeTooLarge,
        eventsBeforeError: [chunkedHeadEvent]),
    boundary(
        "chunk size digits (2)", limits { $0.maxChunkSizeDigits = 2 },
        passing: chunkedHead + "02\r\nok\r\n00\r\n\r\n",
        events: [chunkedHeadEvent, body("ok"), end(keepAlive: true)],
        failing: chunkedHead + "002\r\nok\r\n0\r\n\r\n", error: .chunkSizeTooLarge,
        eventsBeforeError: [chunkedHeadEvent]),
    // Everything after the digits counts: ` ;a="b cd"` is 10 bytes.
    boundary(
        "chunk extension length", limits { $0.maxChunkExtensionLength = 10 },
        passing: chunkedHead + "2 ;a=\"b cd\"\r\nok\r\n0\r\n\r\n",
        events: [chunkedHeadEvent, body("ok"), end(keepAlive: true)],
        failing: chunkedHead + "2 ;a=\"b cde\"\r\nok\r\n0\r\n\r\n", error: .chunkExtensionTooLong,
        eventsBeforeError: [chunkedHeadEvent]),
    // Each trailer line is 5 + n bytes with CRLF; the blank line is not counted.
    boundary(
        "trailer size", limits { $0.maxTrailerSize = 30 },
        passing: chunkedHead + "0\r\nT: \(repeated(25))\r\n\r\n",
        events: [chunkedHeadEvent, end(keepAlive: true, trailers: ["T": repeated(25)])],
        failing: chunkedHead + "0\r\nT: \(repeated(26))\r\n\r\n", error: .trailersTooLarge,
        eventsBeforeError: [chunkedHeadEvent]),
    boundary(
        "interim responses", limits { $0.maxInterimResponses = 2 },
        passing: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n" + noContent(""),
        events: [informational(100, "Continue"), informational(102, "Processing"), head(204, "X", framing: .none),
                 end(keepAlive: true)],
        failing: String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 3) + noContent(""),
        error: .tooManyInterimResponses,
        eventsBeforeError: [informational(100, "Continue"), informational(100, "Continue")]),
].flatMap { $0 }

@Test("limits at the boundary", arguments: boundaryCases)
func limitBoundaries(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}

@Test("a line over the limit fails before its end arrives")
func lineLimitWithoutLineEnd() {
    var parser = HTTPResponseParser(limits: lineLimit)
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 200 " + repeated(27) + "\r"))
    #expect(throws: Never.self) { try parser.next() }
    parser.feed(bytes("\nX: " + repeated(40)))
    #expect(throws: HTTPParseError.headerLineTooLong) { try parser.next() }
}
