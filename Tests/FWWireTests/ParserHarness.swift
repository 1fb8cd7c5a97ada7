// The parser test runner (STYLE.md principle 7): every case is fed four ways (whole, one byte at a
// time, split at every offset, and followed by the start of another response) and must produce the same
// events (body chunks coalesced) and the same error each way.

import FWWire
import Testing

// MARK: - Building expectations

/// The UTF-8 bytes of `string`.
func bytes(_ string: String) -> [UInt8] {
    Array(string.utf8)
}

/// A final response head event.
func head(
    _ status: Int, _ reason: String, _ headers: HTTPHeaders = [:], version: HTTPVersion = .http1_1,
    framing: BodyFraming
) -> HTTPResponseEvent {
    .head(HTTPResponseHead(version: version, status: status, reason: reason, headers: headers), framing: framing)
}

/// An interim (1xx) response event.
func informational(_ status: Int, _ reason: String, _ headers: HTTPHeaders = [:]) -> HTTPResponseEvent {
    .informational(HTTPResponseHead(version: .http1_1, status: status, reason: reason, headers: headers))
}

/// A body event with the UTF-8 bytes of `string`.
func body(_ string: String) -> HTTPResponseEvent {
    .body(bytes(string))
}

/// An end-of-message event.
func end(keepAlive: Bool, trailers: HTTPHeaders = [:]) -> HTTPResponseEvent {
    .end(trailers: trailers, keepAlive: keepAlive)
}

// MARK: - Cases

/// One parser case: what a server sends and what the parser must report.
struct ParserCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: [UInt8]
    /// The method of the request the response answers.
    var method: String
    /// True when the server closes the connection after `input`.
    var endOfStream: Bool
    var limits: HTTPLimits
    /// The events expected before the end or the error, body chunks coalesced.
    var events: [HTTPResponseEvent]
    /// The error expected after `events`, or nil when the message must end cleanly.
    var error: HTTPParseError?
    /// The named deviations the parser must record by a clean end; nil: not checked.
    var deviations: HTTPDeviations?

    var testDescription: String {
        name
    }

    init(
        _ name: String, _ input: [UInt8], method: String = "GET", endOfStream: Bool = false,
        limits: HTTPLimits = HTTPLimits(), events: [HTTPResponseEvent], error: HTTPParseError? = nil
    ) {
        self.name = name
        self.input = input
        self.method = method
        self.endOfStream = endOfStream
        self.limits = limits
        self.events = events
        self.error = error
    }

    init(
        _ name: String, _ input: String, method: String = "GET", endOfStream: Bool = false,
        limits: HTTPLimits = HTTPLimits(), events: [HTTPResponseEvent], error: HTTPParseError? = nil
    ) {
        self.init(
            name, bytes(input), method: method, endOfStream: endOfStream, limits: limits, events: events,
            error: error)
    }

    /// The same case, with the server closing after the input and the close-delimited end expected.
    func closing() -> ParserCase {
        var copy = self
        copy.endOfStream = true
        copy.events.append(end(keepAlive: false))
        return copy
    }

    /// A case that must fail with `error` before reporting any event.
    static func failing(
        _ name: String, _ input: String, _ error: HTTPParseError, method: String = "GET",
        endOfStream: Bool = false, limits: HTTPLimits = HTTPLimits()
    ) -> ParserCase {
        ParserCase(
            name, input, method: method, endOfStream: endOfStream, limits: limits, events: [], error: error)
    }
}

// MARK: - Running

/// Feeds parser cases the four ways and compares what comes out.
enum ParserHarness {
    /// What one run produced.
    struct Outcome: Equatable, CustomStringConvertible {
        var events: [HTTPResponseEvent] = []
        var error: HTTPParseError?

        var description: String {
            "events \(events), error \(error.map(String.init(describing:)) ?? "none")"
        }
    }

    /// Bytes that follow the message in the fourth way: the start of the next response.
    static let trailingBytes = bytes("HTTP/1.1 200 OK\r\n")

    /// Runs `testCase` the four ways and records an issue for each way whose outcome differs.
    static func check(_ testCase: ParserCase, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = Outcome(events: testCase.events, error: testCase.error)
        let input = testCase.input

        let whole = run(testCase, chunks: [input])
        #expect(whole.outcome == expected, "fed whole", sourceLocation: sourceLocation)
        expectFinished(whole.parser, testCase, leftOver: 0, way: "fed whole", sourceLocation: sourceLocation)

        let byteByByte = run(testCase, chunks: input.map { [$0] })
        #expect(byteByByte.outcome == expected, "fed byte by byte", sourceLocation: sourceLocation)
        expectFinished(byteByByte.parser, testCase, leftOver: 0, way: "byte by byte", sourceLocation: sourceLocation)

        for offset in 0...input.count {
            let split = run(testCase, chunks: [Array(input[..<offset]), Array(input[offset...])])
            guard split.outcome == expected else {
                Issue.record("split at \(offset): \(split.outcome)", sourceLocation: sourceLocation)
                break
            }
        }

        guard !testCase.endOfStream else { return }
        let trailing = run(testCase, chunks: [input + trailingBytes])
        #expect(trailing.outcome == expected, "followed by more bytes", sourceLocation: sourceLocation)
        expectFinished(
            trailing.parser, testCase, leftOver: trailingBytes.count, way: "followed by more bytes",
            sourceLocation: sourceLocation)
    }

    /// After a clean end, the parser is idle and holds exactly the bytes that followed the message.
    private static func expectFinished(
        _ parser: HTTPResponseParser, _ testCase: ParserCase, leftOver: Int, way: String,
        sourceLocation: SourceLocation
    ) {
        guard testCase.error == nil else { return }
        if let deviations = testCase.deviations {
            #expect(parser.responseDeviations == deviations, "\(way): deviations", sourceLocation: sourceLocation)
        }
        #expect(parser.isIdle, "\(way): not idle after the end", sourceLocation: sourceLocation)
        #expect(parser.bufferedByteCount == leftOver, "\(way): buffered bytes", sourceLocation: sourceLocation)
    }

    /// Feeds `chunks` (then end of stream when the case says so), pulling every event after each feed.
    static func run(_ testCase: ParserCase, chunks: [[UInt8]]) -> (outcome: Outcome, parser: HTTPResponseParser) {
        var parser = HTTPResponseParser(limits: testCase.limits)
        parser.expectResponse(requestMethod: testCase.method)
        var outcome = Outcome()
        for chunk in chunks {
            parser.feed(chunk)
            guard drain(&parser, into: &outcome) else { return (outcome, parser) }
        }
        if testCase.endOfStream {
            parser.feedEndOfStream()
            _ = drain(&parser, into: &outcome)
        }
        return (outcome, parser)
    }

    /// Pulls events until the parser needs input; false after an error (checked to be sticky).
    static func drain(_ parser: inout HTTPResponseParser, into outcome: inout Outcome) -> Bool {
        for _ in 0..<100_000 {
            let event: HTTPResponseEvent?
            do {
                event = try parser.next()
            } catch {
                outcome.error = error
                #expect(throws: error, "errors are sticky") { try parser.next() }
                return false
            }
            guard let event else { return true }
            append(event, to: &outcome.events)
        }
        Issue.record("parser kept producing events")
        return false
    }

    /// Appends `event`, joining consecutive body events into one.
    static func append(_ event: HTTPResponseEvent, to events: inout [HTTPResponseEvent]) {
        guard case .body(let more) = event else {
            events.append(event)
            return
        }
        #expect(!more.isEmpty, "body events are never empty")
        if case .body(let previous) = events.last {
            events[events.count - 1] = .body(previous + more)
        } else {
            events.append(event)
        }
    }
}
