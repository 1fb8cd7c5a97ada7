// CONFORMANCE.md "Header fields": one row per rule, each run the four ways; the same rules hold for
// trailer fields (last rows).

import FWWire
import Testing

/// A response with the given field lines and no body, so only the head matters.
private func response(_ fieldLines: String) -> String {
    "HTTP/1.1 204 No Content\r\n" + fieldLines + "\r\n"
}

/// A row expecting the head to carry exactly `fields`.
private func accepted(_ name: String, _ fieldLines: String, _ fields: HTTPHeaders) -> ParserCase {
    ParserCase(
        name, response(fieldLines), events: [head(204, "No Content", fields, framing: .none), end(keepAlive: true)])
}

/// A row expecting `error`.
private func rejected(_ name: String, _ fieldLines: String, _ error: HTTPParseError) -> ParserCase {
    .failing(name, response(fieldLines), error)
}

private let fieldCases: [ParserCase] = [
    // MARK: Names and values accepted
    accepted("no fields", "", [:]),
    accepted("order and duplicates kept", "B: 1\r\nSet-Cookie: a=1\r\nA: 2\r\nSet-Cookie: b=2\r\n",
             ["B": "1", "Set-Cookie": "a=1", "A": "2", "Set-Cookie": "b=2"]),
    accepted("every tchar in a name", "!#$%&'*+-.^_`|~09azAZ: v\r\n", ["!#$%&'*+-.^_`|~09azAZ": "v"]),
    accepted("OWS around the value trimmed, inner kept", "X:  \t a \t b \t \r\n", ["X": "a \t b"]),
    accepted("no space after the colon", "X:v\r\n", ["X": "v"]),
    accepted("empty value", "X:\r\nY:   \r\n", ["X": "", "Y": ""]),
    accepted("colon inside the value", "Location: http://h:80/p\r\n", ["Location": "http://h:80/p"]),
    accepted("CTL other than NUL kept (RFC 9110 §5.5 robustness)", "X: a\u{1}b\u{7F}\r\n", ["X": "a\u{1}b\u{7F}"]),
    // Bytes C3 A9 are obs-text on the wire; HTTPHeaders stores "é" as the same two UTF-8 bytes.
    ParserCase(
        "obs-text in a value", bytes("HTTP/1.1 204 No Content\r\nX: caf") + [0xC3, 0xA9] + bytes("\r\n\r\n"),
        events: [head(204, "No Content", ["X": "café"], framing: .none), end(keepAlive: true)]),

    // MARK: obs-fold
    accepted("obs-fold joined with one SP", "X: a\r\n   b\r\nY: c\r\n", ["X": "a b", "Y": "c"]),
    accepted("obs-fold with HTAB, twice", "X: a\r\n\tb \r\n \t c\r\n", ["X": "a b c"]),
    accepted("obs-fold continuing an empty value", "X:\r\n b\r\n", ["X": "b"]),
    accepted("whitespace-only continuation adds nothing", "X: a\r\n  \t\r\n", ["X": "a"]),
    rejected("obs-fold before any field", " X: a\r\n", .invalidHeaderName),
    rejected("NUL in an obs-fold continuation", "X: a\r\n b\u{0}\r\n", .invalidHeaderValue),

    // MARK: Names rejected
    rejected("space in a name", "Bad Name: v\r\n", .invalidHeaderName),
    rejected("space before the colon", "Name : v\r\n", .invalidHeaderName),
    rejected("HTAB before the colon", "Name\t: v\r\n", .invalidHeaderName),
    rejected("empty name", ": v\r\n", .invalidHeaderName),
    rejected("missing colon", "NoColon\r\n", .invalidHeaderName),
    rejected("NUL in a name", "Na\u{0}me: v\r\n", .invalidHeaderName),
    rejected("delimiter in a name", "Na(me): v\r\n", .invalidHeaderName),
    rejected("non-ASCII in a name", "Nä: v\r\n", .invalidHeaderName),

    // MARK: Values rejected
    rejected("NUL in a value", "X: a\u{0}b\r\n", .invalidHeaderValue),
    rejected("bare CR in a value", "X: a\rb\r\n", .invalidLineEnding),

    // MARK: Trailer fields follow the same rules
    ParserCase(
        "trailers: duplicates, OWS and obs-fold",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT:  1 \r\nT: 2\r\n  more\r\n\r\n",
        events: [
            head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked),
            end(keepAlive: true, trailers: ["T": "1", "T": "2 more"]),
        ]),
    ParserCase(
        "trailers: space before the colon", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT : 1\r\n\r\n",
        events: [head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked)], error: .invalidHeaderName),
    ParserCase(
        "trailers: NUL in a value", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: \u{0}\r\n\r\n",
        events: [head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked)], error: .invalidHeaderValue),
]

@Test("header fields", arguments: fieldCases)
func headerFields(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}

@Test("lookup on parsed fields is case-insensitive and keeps raw bytes")
func parsedFieldLookup() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(
        bytes("HTTP/1.1 204 No Content\r\nset-COOKIE: a=1\r\nSet-Cookie: b=2\r\nX: ") + [0xFF] + bytes("\r\n\r\n"))
    let event = try #require(try parser.next())
    guard case .head(let head, _) = event else {
        Issue.record("expected a head, got \(event)")
        return
    }
    #expect(head.headers.values(name: "Set-Cookie") == ["a=1", "b=2"])
    #expect(head.headers.rawName(at: 0) == ArraySlice(bytes("set-COOKIE")))
    #expect(head.headers.rawValue(at: 2) == [0xFF])
    #expect(head.headers.first(name: "x") == "\u{FF}")
}
