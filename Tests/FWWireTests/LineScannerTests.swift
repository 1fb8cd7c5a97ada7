// CONFORMANCE.md "Line endings": CRLF, or a bare LF, ends a line; a bare CR never does. One row per rule,
// each run the four ways, in every kind of line (status, field, chunk size, trailer).

import FWWire
import Testing

private let lineEndingCases: [ParserCase] = [
    ParserCase(
        "CRLF everywhere", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        events: [
            head(200, "OK", ["Content-Length": "2"], framing: .contentLength(2)), body("ok"), end(keepAlive: true),
        ]),
    ParserCase(
        "bare LF everywhere", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
        events: [
            head(200, "OK", ["Content-Length": "2"], framing: .contentLength(2)), body("ok"), end(keepAlive: true),
        ]),
    ParserCase(
        "mixed CRLF and LF", "HTTP/1.1 200 OK\nA: 1\r\nB: 2\n\r\n",
        events: [head(200, "OK", ["A": "1", "B": "2"], framing: .untilClose)]
    ).closing(),
    ParserCase(
        "bare LF in chunked framing and trailers",
        "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nok\n0\nT: 1\n\n",
        events: [
            head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked), body("ok"),
            end(keepAlive: true, trailers: ["T": "1"]),
        ]),
    .failing(
        "bare CR ends nothing in the status line", "HTTP/1.1 200 OK\rContent-Length: 0\r\n\r\n", .invalidLineEnding),
    .failing("bare CR in a field line", "HTTP/1.1 200 OK\r\nA: 1\rB: 2\r\n\r\n", .invalidLineEnding),
    .failing("bare CR as the blank line", "HTTP/1.1 200 OK\r\nA: 1\r\n\r\r\n", .invalidLineEnding),
    .failing("CR CR LF", "HTTP/1.1 200 OK\r\r\n\r\n", .invalidLineEnding),
    ParserCase(
        "bare CR after a chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\rok\r\n0\r\n\r\n",
        events: [head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked)], error: .invalidLineEnding),
    ParserCase(
        "bare CR in a trailer line",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: 1\rU: 2\r\n\r\n",
        events: [head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked)], error: .invalidLineEnding),
]

@Test("line endings", arguments: lineEndingCases)
func lineEndings(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}
