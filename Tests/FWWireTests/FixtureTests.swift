// The golden fixtures (Fixtures/http1, STYLE.md principle 15) through HTTPResponseParser the four ways of
// ParserHarness: whole, one byte at a time, split at every offset (128 evenly spaced offsets for inputs
// over 2 KiB, which are the default-limit cases), and followed by the start of another response. Every
// way must report exactly the fixture's events, error and unconsumed bytes. Then the loader's own checks.

import FWWire
import Testing
import TestSupport

// MARK: - Every fixture, four ways

@Test("golden fixtures through the response parser, four ways", arguments: try HTTPFixture.loadAll())
func fixtureThroughParser(_ fixture: HTTPFixture) throws {
    let testCase = ParserCase(
        fixture.name, fixture.reply, method: fixture.requestMethod, endOfStream: fixture.afterReply != .keepOpen,
        limits: try fixture.httpLimits(), events: [])
    let expected = try ParserObservation(expecting: fixture)
    let input = fixture.reply

    let whole = ParserObservation(testCase, chunks: [input])
    #expect(whole == expected, "fed whole")
    let byteByByte = ParserObservation(testCase, chunks: input.map { [$0] })
    #expect(byteByByte == expected, "fed byte by byte")

    let step = input.count > 2048 ? input.count / 128 : 1
    for offset in Array(stride(from: 0, to: input.count, by: step)) + [input.count] {
        let split = ParserObservation(testCase, chunks: [Array(input[..<offset]), Array(input[offset...])])
        guard split == expected else {
            Issue.record("split at \(offset): \(split)\nexpected \(expected)")
            break
        }
    }

    guard !testCase.endOfStream else { return }
    var followed = expected
    followed.leftover = expected.leftover.map { $0 + ParserHarness.trailingBytes.count }
    let trailing = ParserObservation(testCase, chunks: [input + ParserHarness.trailingBytes])
    #expect(trailing == followed, "followed by the start of another response")
}

// MARK: - Observations

/// What the parser reported, in a form a fixture can state exactly.
private struct ParserObservation: Equatable, CustomStringConvertible {
    enum Event: Equatable, CustomStringConvertible {
        case interim(HTTPFixture.Head)
        case head(HTTPFixture.Head, framing: String)
        case body([UInt8])
        case end(trailers: [HTTPFixture.Field], keepAlive: Bool)

        var description: String {
            switch self {
            case .interim(let head): "interim \(head)"
            case .head(let head, let framing): "head \(head) framing \(framing)"
            case .body(let bytes): "body \"\(HTTPFixture.escaped(bytes))\""
            case .end(let trailers, let keepAlive): "end trailers \(trailers) keep-alive \(keepAlive)"
            }
        }
    }

    var events: [Event]
    var error: HTTPParseError?
    /// After a clean end: the bytes the parser left unconsumed (nil when it did not end cleanly).
    var leftover: Int?

    var description: String {
        "events \(events), error \(error.map { "\($0)" } ?? "none"), leftover \(leftover.map { "\($0)" } ?? "-")"
    }

    /// Runs `testCase` fed as `chunks` and records what came out.
    init(_ testCase: ParserCase, chunks: [[UInt8]]) {
        let (outcome, parser) = ParserHarness.run(testCase, chunks: chunks)
        events = outcome.events.compactMap { event in
            switch event {
            case .informational(let head): .interim(HTTPFixture.Head(head))
            case .head(let head, let framing): .head(HTTPFixture.Head(head), framing: framingName(framing))
            case .body(let bytes): .body(bytes)
            case .end(let trailers, let keepAlive): .end(trailers: HTTPFixture.fields(trailers), keepAlive: keepAlive)
            case .chunk: nil // only reported when asked for (HTTPResponseParserChunkTests)
            }
        }
        error = outcome.error
        let ended = outcome.error == nil && parser.isIdle && outcome.events.last.map(isEnd) == true
        leftover = ended ? parser.bufferedByteCount : nil
    }

    /// What `fixture` says the parser must report.
    init(expecting fixture: HTTPFixture) throws {
        let expectation = fixture.expectation
        events = expectation.interim.map(Event.interim)
        if let head = expectation.head, let framing = expectation.framing {
            events.append(.head(head, framing: framing))
        }
        if !expectation.body.isEmpty {
            events.append(.body(expectation.body))
        }
        if let expected = expectation.error {
            let parseError = try #require(HTTPFixture.parseErrors[expected.parseError], "no HTTPParseError.\(expected.parseError)")
            #expect(parseError.isPrematureEnd == expected.isNetworkConnectionLost, "error kind and parse error agree")
            error = parseError
            leftover = nil
        } else {
            events.append(.end(trailers: expectation.trailers, keepAlive: expectation.keepAlive))
            error = nil
            leftover = expectation.leftover.count
        }
    }
}

private func isEnd(_ event: HTTPResponseEvent) -> Bool {
    if case .end = event { return true }
    return false
}

/// The fixture spelling of a framing.
private func framingName(_ framing: BodyFraming) -> String {
    switch framing {
    case .none: "none"
    case .contentLength(let length): "content-length \(length)"
    case .chunked: "chunked"
    case .untilClose: "until-close"
    }
}

// MARK: - Names used by fixtures

// MARK: - The fixture set

@Test("the fixture set is large and covers every section of CONFORMANCE.md about responses")
func fixtureCoverage() throws {
    let fixtures = try HTTPFixture.loadAll()
    #expect(fixtures.count >= 60)
    let sections = [
        "status-line-", "fields-", "framing-1-", "framing-2-", "framing-3-", "framing-4-", "framing-5-",
        "chunked-", "close-", "reset-", "reuse-",
    ]
    for section in sections {
        #expect(fixtures.filter { $0.name.hasPrefix(section) }.count >= 2, "fixtures for \(section)")
    }
    #expect(fixtures.allSatisfy { fixture in sections.contains { fixture.name.hasPrefix($0) } })
    let namedErrors = Set(fixtures.compactMap { $0.expectation.error?.parseError })
    #expect(namedErrors == Set(HTTPFixture.parseErrors.keys), "every HTTPParseError is pinned by a fixture")
}

// MARK: - The loader

@Test("the loader decodes every escape and keeps reply lines without implicit newlines")
func loaderEscapes() throws {
    let text = #"""
        # a comment
        rule: escapes
        request: HEAD
        request-header: Connection: keep-alive
        limit: maxHeaderCount 7
        reply:
        A\r\n\t\0\\\"\x7f\xFF
        \*3{ab\*2{c}}|
        reply-end
        then: close
        expect: networkConnectionLost
        status: HTTP/1.0 200 R\xE9ason
        header: N\x41me: v \t w
        header: Empty:
        framing: content-length 12
        body: "q\"\\\x00"
        """#
    let fixture = try HTTPFixture(parsing: Array(text.utf8), name: "escapes")
    #expect(fixture.reply == Array("A\r\n\t\0\\\"".utf8) + [0x7F, 0xFF] + Array("abccabccabcc|".utf8))
    #expect(fixture.requestMethod == "HEAD")
    #expect(fixture.requestHeaders == [
        HTTPFixture.Field(name: Array("Connection".utf8), value: Array("keep-alive".utf8)),
    ])
    #expect(fixture.limits == [HTTPFixture.Limit(name: "maxHeaderCount", value: 7)])
    #expect(fixture.afterReply == .close)
    #expect(fixture.expectation.error == .networkConnectionLost)
    let head = try #require(fixture.expectation.head)
    #expect(head == HTTPFixture.Head(
        version: "HTTP/1.0", status: 200, reason: Array("R".utf8) + [0xE9] + Array("ason".utf8),
        fields: [
            HTTPFixture.Field(name: Array("NAme".utf8), value: Array("v \t w".utf8)),
            HTTPFixture.Field(name: Array("Empty".utf8), value: []),
        ]))
    #expect(fixture.expectation.framing == "content-length 12")
    #expect(fixture.expectation.body == Array("q\"\\\0".utf8))
    #expect(!fixture.leavesConnectionReusable)
}

/// The start of a fixture that only lacks its expectation.
private let keptOpen = "rule: r\nreply:\nx\nreply-end\nthen: keep-open\n"
private let closed = "rule: r\nreply:\nx\nreply-end\nthen: close\n"
private let badStatusLine = "expect: badServerResponse invalidStatusLine\n"
private let okHead = "expect: response\nstatus: HTTP/1.1 200 OK\n"

/// Fixture texts that break the format, each with what is wrong.
private let malformedFixtures: [(mistake: String, text: String)] = [
    ("trailing space", keptOpen + "expect: badServerResponse invalidStatusLine \n"),
    ("literal byte above 0x7E", "rule: r\nreply:\n\u{E9}\nreply-end\nthen: keep-open\n" + badStatusLine),
    ("unknown escape", "rule: r\nreply:\n\\q\nreply-end\nthen: keep-open\n" + badStatusLine),
    ("unclosed repeat", "rule: r\nreply:\n\\*2{a\nreply-end\nthen: keep-open\n" + badStatusLine),
    ("no reply-end", "rule: r\nthen: keep-open\n" + badStatusLine + "reply:\nx\n"),
    ("no expect", keptOpen),
    ("unknown key", keptOpen + badStatusLine + "colour: red\n"),
    ("key twice", keptOpen + "then: close\n" + badStatusLine),
    ("response without keep-alive", keptOpen + okHead + "framing: none\n"),
    ("status without framing", keptOpen + okHead + "keep-alive: yes\n"),
    ("until-close kept open", keptOpen + okHead + "framing: until-close\nkeep-alive: no\n"),
    ("lost connection kept open", keptOpen + "expect: networkConnectionLost\n"),
    ("reset with a bad response", "rule: r\nreply:\nx\nreply-end\nthen: reset\n" + badStatusLine),
    ("keep-alive with an error", closed + badStatusLine + "keep-alive: no\n"),
    ("header before status", keptOpen + badStatusLine + "header: A: b\n"),
    ("unquoted body", keptOpen + okHead + "framing: none\nkeep-alive: yes\nbody: x\n"),
    ("unknown limit", "limit: maxBodySize 3\n" + keptOpen + badStatusLine),
    ("unknown expectation", keptOpen + "expect: timedOut\n"),
    ("leftover that does not end the reply", keptOpen + okHead + "framing: none\nkeep-alive: yes\nleftover: \"y\"\n"),
]

@Test("the fixture the malformed ones are made from loads")
func loaderAcceptsTheBase() throws {
    let fixture = try HTTPFixture(parsing: Array((keptOpen + badStatusLine).utf8), name: "base")
    #expect(fixture.reply == Array("x".utf8))
    #expect(fixture.expectation.error == .badServerResponse("invalidStatusLine"))
    #expect(fixture.afterReply == .keepOpen)
}

@Test("the loader rejects fixtures that break the format", arguments: malformedFixtures)
func loaderRejects(_ mistake: String, _ text: String) {
    let error = #expect(throws: HTTPFixtureError.self, "\(mistake)") {
        try HTTPFixture(parsing: Array(text.utf8), name: "bad")
    }
    #expect(error?.isInvalidFormat == true, "\(mistake)")
}
