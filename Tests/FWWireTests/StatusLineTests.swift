// CONFORMANCE.md "Status line": one row per rule, each run the four ways.

import FWWire
import Testing

private let empty = "Content-Length: 0\r\n\r\n"

private let statusLineCases: [ParserCase] = [
    // MARK: Accepted
    ParserCase(
        "HTTP/1.1 with reason", "HTTP/1.1 200 OK\r\n" + empty,
        events: [head(200, "OK", ["Content-Length": "0"], framing: .contentLength(0)), end(keepAlive: true)]),
    ParserCase(
        "HTTP/1.0", "HTTP/1.0 200 OK\r\n" + empty,
        events: [
            head(200, "OK", ["Content-Length": "0"], version: .http1_0, framing: .contentLength(0)),
            end(keepAlive: false),
        ]),
    ParserCase(
        "reason missing, no space", "HTTP/1.1 204\r\n\r\n",
        events: [head(204, "", framing: .none), end(keepAlive: true)]),
    ParserCase(
        "reason missing, with space", "HTTP/1.1 204 \r\n\r\n",
        events: [head(204, "", framing: .none), end(keepAlive: true)]),
    ParserCase(
        "reason with spaces and HTAB", "HTTP/1.1 404 Not\tFound here\r\n" + empty,
        events: [
            head(404, "Not\tFound here", ["Content-Length": "0"], framing: .contentLength(0)),
            end(keepAlive: true),
        ]),
    ParserCase(
        "reason with obs-text decodes as ISO-8859-1",
        bytes("HTTP/1.1 200 Gr") + [0xFC, 0xDF] + bytes("e\r\n" + empty),
        events: [head(200, "Grüße", ["Content-Length": "0"], framing: .contentLength(0)), end(keepAlive: true)]),
    ParserCase(
        "status code 999", "HTTP/1.1 999 Custom\r\n" + empty,
        events: [head(999, "Custom", ["Content-Length": "0"], framing: .contentLength(0)), end(keepAlive: true)]),

    // MARK: Version
    .failing("lower-case version", "http/1.1 200 OK\r\n" + empty, .invalidStatusLine),
    .failing("HTTP/2.0", "HTTP/2.0 200 OK\r\n" + empty, .unsupportedVersion),
    .failing("HTTP/0.9", "HTTP/0.9 200 OK\r\n" + empty, .unsupportedVersion),
    .failing("HTTP/1.2", "HTTP/1.2 200 OK\r\n" + empty, .unsupportedVersion),
    .failing("two-digit minor", "HTTP/1.10 200 OK\r\n" + empty, .invalidStatusLine),
    .failing("version without dot", "HTTP/11 200 OK\r\n" + empty, .invalidStatusLine),
    .failing("version only", "HTTP/1.1\r\n" + empty, .invalidStatusLine),
    .failing("garbage", "<html>hello</html>\r\n", .invalidStatusLine),
    .failing("HTTP/0.9 body without head, then close", "hello", .invalidStatusLine, endOfStream: true),

    // MARK: Status code
    .failing("two digits", "HTTP/1.1 20 OK\r\n" + empty, .invalidStatusCode),
    .failing("four digits", "HTTP/1.1 2000 OK\r\n" + empty, .invalidStatusCode),
    .failing("non-digit", "HTTP/1.1 2x0 OK\r\n" + empty, .invalidStatusCode),
    .failing("below 100", "HTTP/1.1 099 OK\r\n" + empty, .invalidStatusCode),
    .failing("two spaces before the code", "HTTP/1.1  200 OK\r\n" + empty, .invalidStatusCode),
    .failing("HTAB instead of SP after the code", "HTTP/1.1 200\tOK\r\n" + empty, .invalidStatusCode),
    .failing("no code", "HTTP/1.1 \r\n" + empty, .invalidStatusCode),

    // MARK: Before and inside the line
    .failing("leading space", " HTTP/1.1 200 OK\r\n" + empty, .invalidStatusLine),
    .failing("empty line first", "\r\nHTTP/1.1 200 OK\r\n" + empty, .invalidStatusLine),
    .failing("bare LF first", "\nHTTP/1.1 200 OK\r\n" + empty, .invalidStatusLine),
    .failing("CTL in reason", "HTTP/1.1 200 O\u{1}K\r\n" + empty, .invalidStatusLine),
    .failing("NUL in reason", "HTTP/1.1 200 O\u{0}K\r\n" + empty, .invalidStatusLine),
    .failing("DEL in reason", "HTTP/1.1 200 O\u{7F}K\r\n" + empty, .invalidStatusLine),
    .failing("bare CR in reason", "HTTP/1.1 200 O\rK\r\n" + empty, .invalidLineEnding),
]

@Test("status line", arguments: statusLineCases)
func statusLine(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}
