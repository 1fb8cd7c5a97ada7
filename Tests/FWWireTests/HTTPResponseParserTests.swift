// The message-level parser: bodies by framing, premature close, keep-alive derivation and 1xx handling
// (rows run the four ways), then the API behaviour around them: idle, buffering, pipelining, stickiness.

import FWWire
import Testing
import TestSupport

private let cl5: HTTPHeaders = ["Content-Length": "5"]

// MARK: - Bodies by framing

private let bodyCases: [ParserCase] = [
    ParserCase(
        "Content-Length body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        events: [head(200, "OK", cl5, framing: .contentLength(5)), body("hello"), end(keepAlive: true)]),
    ParserCase(
        "Content-Length 0", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        events: [head(200, "OK", ["Content-Length": "0"], framing: .contentLength(0)), end(keepAlive: true)]),
    ParserCase(
        "HEAD: Content-Length describes a body that is not there", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
        method: "HEAD", events: [head(200, "OK", cl5, framing: .none), end(keepAlive: true)]),
    ParserCase(
        "204 with Content-Length: no body", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
        events: [head(204, "No Content", cl5, framing: .none), end(keepAlive: true)]),
    ParserCase(
        "304 with chunked: no body", "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
        events: [
            head(304, "Not Modified", ["Transfer-Encoding": "chunked"], framing: .none), end(keepAlive: true),
        ]),
    ParserCase(
        "close-delimited body", "HTTP/1.1 200 OK\r\n\r\nall of it\r\n\r\nuntil close",
        events: [head(200, "OK", framing: .untilClose), body("all of it\r\n\r\nuntil close")]
    ).closing(),
    ParserCase(
        "close-delimited empty body", "HTTP/1.1 200 OK\r\n\r\n",
        events: [head(200, "OK", framing: .untilClose)]
    ).closing(),
    ParserCase(
        "TE not ending in chunked reads until close",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        events: [
            head(200, "OK", ["Transfer-Encoding": "gzip"], framing: .untilClose), body("5\r\nhello\r\n0\r\n\r\n"),
        ]
    ).closing(),
    ParserCase(
        "TE and CL: chunked wins, no reuse",
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        events: [
            head(200, "OK", ["Content-Length": "100", "Transfer-Encoding": "chunked"], framing: .chunked),
            body("hello"), end(keepAlive: false),
        ]),
    ParserCase(
        "TE in HTTP/1.0 reads until close",
        "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n0\r\n\r\n",
        events: [
            head(200, "OK", ["Transfer-Encoding": "chunked", "Connection": "keep-alive"], version: .http1_0,
                 framing: .untilClose),
            body("0\r\n\r\n"),
        ]
    ).closing(),
    .failing("conflicting Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
             .conflictingContentLength),
    .failing("invalid Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nhello", .invalidContentLength),
]

@Test("bodies by framing", arguments: bodyCases)
func bodies(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}

// MARK: - Premature close

private let prematureCases: [ParserCase] = [
    .failing("close before any byte", "", .unexpectedEndOfStream, endOfStream: true),
    .failing("close inside the status line", "HTTP/1.1 200 O", .unexpectedEndOfStream, endOfStream: true),
    .failing("close after a CR", "HTTP/1.1 200 OK\r", .unexpectedEndOfStream, endOfStream: true),
    .failing("close inside the fields", "HTTP/1.1 200 OK\r\nContent-Len", .unexpectedEndOfStream, endOfStream: true),
    .failing("close before the blank line", "HTTP/1.1 200 OK\r\nA: 1\r\n", .unexpectedEndOfStream, endOfStream: true),
    ParserCase(
        "close before any Content-Length byte", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", endOfStream: true,
        events: [head(200, "OK", cl5, framing: .contentLength(5))], error: .unexpectedEndOfStream),
    ParserCase(
        "close inside a Content-Length body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", endOfStream: true,
        events: [head(200, "OK", cl5, framing: .contentLength(5)), body("hel")], error: .unexpectedEndOfStream),
]

@Test("premature close", arguments: prematureCases)
func prematureClose(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
    #expect(testCase.error?.isPrematureEnd == true)
}

// MARK: - Keep-alive derivation

private func keepAliveCase(
    _ name: String, _ statusLine: String, _ fields: HTTPHeaders, _ keepAlive: Bool
) -> ParserCase {
    var headers = fields
    headers.add(name: "Content-Length", value: "0")
    let version: HTTPVersion = statusLine.hasPrefix("HTTP/1.0") ? .http1_0 : .http1_1
    let fieldLines = headers.map { "\($0.name): \($0.value)\r\n" }.joined()
    return ParserCase(
        name, statusLine + "\r\n" + fieldLines + "\r\n",
        events: [head(200, "OK", headers, version: version, framing: .contentLength(0)), end(keepAlive: keepAlive)])
}

private let keepAliveCases: [ParserCase] = [
    keepAliveCase("1.1 by default", "HTTP/1.1 200 OK", [:], true),
    keepAliveCase("1.1 with close", "HTTP/1.1 200 OK", ["Connection": "close"], false),
    keepAliveCase("1.1 with Close, any case", "HTTP/1.1 200 OK", ["connection": "Close"], false),
    keepAliveCase("1.1 with close in a list", "HTTP/1.1 200 OK", ["Connection": "keep-alive, close"], false),
    keepAliveCase("1.1 with close in a second field", "HTTP/1.1 200 OK",
                  ["Connection": "upgrade", "Connection": "close"], false),
    keepAliveCase("1.1 with an unrelated token", "HTTP/1.1 200 OK", ["Connection": "closed, upgrade"], true),
    keepAliveCase("1.0 by default", "HTTP/1.0 200 OK", [:], false),
    keepAliveCase("1.0 with keep-alive", "HTTP/1.0 200 OK", ["Connection": "Keep-Alive"], true),
    keepAliveCase("1.0 with keep-alive and close", "HTTP/1.0 200 OK", ["Connection": "keep-alive, close"], false),
]

@Test("keep-alive derivation", arguments: keepAliveCases)
func keepAlive(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}

// MARK: - 1xx

private let interimCases: [ParserCase] = [
    ParserCase(
        "100 Continue, then the final response",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        events: [
            informational(100, "Continue"), head(200, "OK", cl5, framing: .contentLength(5)), body("hello"),
            end(keepAlive: true),
        ]),
    ParserCase(
        "two interim responses with fields, body bytes ignored",
        "HTTP/1.1 100 Continue\r\nContent-Length: 9\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
            + "HTTP/1.1 204 No Content\r\n\r\n",
        events: [
            informational(100, "Continue", ["Content-Length": "9"]),
            informational(103, "Early Hints", ["Link": "</a.css>"]), head(204, "No Content", framing: .none),
            end(keepAlive: true),
        ]),
    ParserCase(
        "interim response to HEAD", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
        method: "HEAD",
        events: [informational(100, "Continue"), head(200, "OK", cl5, framing: .none), end(keepAlive: true)]),
    .failing("unsolicited 101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
             .unsolicitedSwitchingProtocols),
    ParserCase(
        "close after an interim response", "HTTP/1.1 100 Continue\r\n\r\n", endOfStream: true,
        events: [informational(100, "Continue")], error: .unexpectedEndOfStream),
]

@Test("1xx responses", arguments: interimCases)
func interimResponses(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}

// MARK: - API behaviour

/// Pulls events until the parser needs input; errors fail the test.
private func events(_ parser: inout HTTPResponseParser) throws -> [HTTPResponseEvent] {
    var events: [HTTPResponseEvent] = []
    while let event = try parser.next() {
        events.append(event)
    }
    return events
}

@Test("two pipelined responses in one feed, with expectResponse between them")
func pipelining() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    let second = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
    parser.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello") + second)
    #expect(try events(&parser) == [
        head(200, "OK", cl5, framing: .contentLength(5)), body("hello"), end(keepAlive: true),
    ])
    #expect(parser.isIdle)
    #expect(parser.bufferedByteCount == second.count)
    #expect(try parser.next() == nil)

    parser.expectResponse(requestMethod: "GET")
    #expect(try events(&parser) == [
        head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked), body("abc"), end(keepAlive: true),
    ])
    #expect(parser.isIdle)
    #expect(parser.bufferedByteCount == 0)
}

@Test("body bytes are delivered as they arrive, never past Content-Length")
func incrementalBody() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel"))
    #expect(try events(&parser) == [head(200, "OK", cl5, framing: .contentLength(5)), body("hel")])
    #expect(!parser.isIdle)
    parser.feed(bytes("loHTTP/1.1"))
    #expect(try events(&parser) == [body("lo"), end(keepAlive: true)])
    #expect(parser.bufferedByteCount == 8)
}

@Test("chunk data is delivered before its chunk is complete")
func incrementalChunk() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\nhel"))
    #expect(try events(&parser) == [head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked), body("hel")])
    #expect(parser.bufferedByteCount == 0)
}

@Test("idle: nothing is reported, received bytes stay buffered, a clean close is not an error")
func idleBehaviour() throws {
    var parser = HTTPResponseParser()
    #expect(parser.isIdle)
    #expect(try parser.next() == nil)
    parser.feedEndOfStream()
    #expect(try parser.next() == nil)

    var unsolicited = HTTPResponseParser()
    unsolicited.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
    #expect(try unsolicited.next() == nil)
    #expect(unsolicited.isIdle)
    #expect(unsolicited.bufferedByteCount == 38)
}

@Test("an upgrade request takes a 101 as its final response; the bytes after it stay for the new protocol")
func acceptedSwitchingProtocols() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET", acceptsSwitchingProtocols: true)
    parser.feed(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\nframes"))
    guard case .head(let head, let framing)? = try parser.next() else {
        Issue.record("no head")
        return
    }
    #expect(head.status == 101)
    #expect(framing == BodyFraming.none)
    #expect(try parser.next() == .end(trailers: HTTPHeaders(), keepAlive: false))
    #expect(parser.isIdle)
    #expect(parser.takeBufferedBytes() == bytes("frames"))

    // The next request that does not ask to upgrade gets the 101 as an error again.
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 101 Switching Protocols\r\n\r\n"))
    #expect(throws: HTTPParseError.unsolicitedSwitchingProtocols) { try parser.next() }
}

@Test("a close after the request was sent but before any response byte is a premature end")
func closeBeforeResponse() {
    var parser = HTTPResponseParser()
    parser.feedEndOfStream()
    parser.expectResponse(requestMethod: "GET")
    #expect(throws: HTTPParseError.unexpectedEndOfStream) { try parser.next() }
}

@Test("errors are sticky and later bytes are ignored")
func stickyErrors() {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/9.9 200 OK\r\n\r\n"))
    #expect(throws: HTTPParseError.unsupportedVersion) { try parser.next() }
    parser.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
    #expect(throws: HTTPParseError.unsupportedVersion) { try parser.next() }
    #expect(!parser.isIdle)
}

@Test("the parser copies what it is fed, so the caller may reuse its read buffer")
func reusedReadBuffer() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    var readBuffer = bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe")
    readBuffer.withUnsafeBytes { parser.feed($0) }
    #expect(try events(&parser) == [head(200, "OK", cl5, framing: .contentLength(5)), body("he")])
    for index in readBuffer.indices {
        readBuffer[index] = 0x58
    }
    readBuffer = bytes("l")
    readBuffer.withUnsafeBytes { parser.feed($0) }
    readBuffer[0] = 0x58
    readBuffer = bytes("lo")
    readBuffer.withUnsafeBytes { parser.feed($0) }
    #expect(try events(&parser) == [body("llo"), end(keepAlive: true)])
}

@Test("a large body in many feeds arrives complete and in order")
func largeBody() throws {
    let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: \(content.count)\r\n\r\n"))
    var received: [UInt8] = []
    var ended = false
    for start in stride(from: 0, to: content.count, by: 4096) {
        parser.feed(Array(content[start..<min(start + 4096, content.count)]))
        for event in try events(&parser) {
            switch event {
            case .body(let chunk): received += chunk
            case .end(_, let keepAlive): ended = keepAlive
            default: break
            }
        }
    }
    #expect(received == content)
    #expect(ended)
}

// MARK: - Mutated input


@Test("mutated responses: accepted or a protocol error, the same however the bytes are split")
func mutatedInput() {
    let seeds = [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: a\r\n  b\r\n\r\nhello",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;a=\"b\"\r\nhello\r\n0\r\nT: 1\r\n\r\n",
        "HTTP/1.0 404 Not Found\r\nConnection: keep-alive\r\nContent-Length: 0, 0\r\n\r\n",
    ].map(bytes)
    let alphabet = bytes("HTTP/1.0 \r\n:;\"\\,0123456789abcdefxX\t") + [0x00, 0x7F, 0xFF]
    var random = SplitMix64(seed: 0x5EED)
    for iteration in 0..<600 {
        var input = seeds[iteration % seeds.count]
        for _ in 0...Int.random(in: 0...3, using: &random) {
            let index = Int.random(in: 0..<input.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: input[index] = alphabet.randomElement(using: &random)!
            case 1: input.insert(alphabet.randomElement(using: &random)!, at: index)
            default: input.remove(at: index)
            }
        }
        let testCase = ParserCase(
            "mutation \(iteration)", input, endOfStream: iteration % 2 == 0, events: [])
        let whole = ParserHarness.run(testCase, chunks: [input]).outcome
        var chunks: [[UInt8]] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + Int.random(in: 1...7, using: &random))
            chunks.append(Array(input[start..<end]))
            start = end
        }
        let split = ParserHarness.run(testCase, chunks: chunks).outcome
        guard whole == split else {
            Issue.record("\(String(decoding: input, as: UTF8.self).debugDescription): \(whole) vs \(split)")
            return
        }
    }
}
