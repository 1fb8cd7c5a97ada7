// CONFORMANCE.md "Named deviations": one row per leniency. Each response is accepted the four ways with its
// deviation recorded (ParserHarness checks `responseDeviations` at the clean end), and refused in strict mode
// with an error that names it.

import FWWire
import Testing

/// One deviation row: the response, what the lenient parser reports, and the deviation strict mode refuses.
struct DeviationCase: Sendable, CustomTestStringConvertible {
    var lenient: ParserCase
    /// The first deviation strict mode meets (the one its error names).
    var refused: HTTPDeviations

    var testDescription: String { lenient.name }

    init(_ name: String, _ input: String, endOfStream: Bool = false, events: [HTTPResponseEvent],
         deviations: HTTPDeviations, refused: HTTPDeviations? = nil) {
        lenient = ParserCase(name, input, endOfStream: endOfStream, events: events)
        lenient.deviations = deviations
        self.refused = refused ?? deviations
    }
}

private let chunked: HTTPHeaders = ["Transfer-Encoding": "chunked"]
/// Two Content-Length fields spelt the same.
private let twoLengths: HTTPHeaders = {
    var headers = HTTPHeaders()
    headers.add(name: "Content-Length", value: "2")
    headers.add(name: "Content-Length", value: "2")
    return headers
}()
private let chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

/// A chunked response whose body (after the standard head) needs `deviation` and decodes to "hi".
private func chunkedCase(_ name: String, _ chunks: String, _ deviation: HTTPDeviations) -> DeviationCase {
    DeviationCase(name, chunkedHead + chunks,
                  events: [head(200, "OK", chunked, framing: .chunked), body("hi"), end(keepAlive: true)],
                  deviations: deviation)
}

private let deviationCases: [DeviationCase] = [
    DeviationCase("bare-lf in the head", "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi",
                  events: [head(200, "OK", ["Content-Length": "2"], framing: .contentLength(2)), body("hi"),
                           end(keepAlive: true)],
                  deviations: .bareLF),
    chunkedCase("bare-lf after a chunk-size", "2\nhi\r\n0\r\n\r\n", .bareLF),
    chunkedCase("bare-lf after chunk data", "2\r\nhi\n0\r\n\r\n", .bareLF),
    chunkedCase("bare-lf in the trailers", "2\r\nhi\r\n0\r\n\n", .bareLF),
    DeviationCase("obs-fold", "HTTP/1.1 200 OK\r\nX-A: one\r\n  two\r\nContent-Length: 0\r\n\r\n",
                  events: [head(200, "OK", ["X-A": "one two", "Content-Length": "0"], framing: .contentLength(0)),
                           end(keepAlive: true)],
                  deviations: .obsFold),
    DeviationCase("missing-reason-phrase", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
                  events: [head(200, "", ["Content-Length": "0"], framing: .contentLength(0)), end(keepAlive: true)],
                  deviations: .missingReasonPhrase),
    chunkedCase("empty-chunk-extension", "2;\r\nhi\r\n0\r\n\r\n", .emptyChunkExtension),
    chunkedCase("empty-chunk-extension between two", "2;a;;b\r\nhi\r\n0\r\n\r\n", .emptyChunkExtension),
    chunkedCase("whitespace-before-chunk-crlf", "2 \r\nhi\r\n0\r\n\r\n", .whitespaceBeforeChunkCRLF),
    chunkedCase("whitespace-before-chunk-crlf after an extension", "2;a=b\t\r\nhi\r\n0\r\n\r\n",
                .whitespaceBeforeChunkCRLF),
    DeviationCase("duplicate-identical-content-length (fields)",
                  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi",
                  events: [head(200, "OK", twoLengths, framing: .contentLength(2)), body("hi"),
                           end(keepAlive: true)],
                  deviations: .duplicateIdenticalContentLength),
    DeviationCase("duplicate-identical-content-length (list)", "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nhi",
                  events: [head(200, "OK", ["Content-Length": "2, 2"], framing: .contentLength(2)), body("hi"),
                           end(keepAlive: true)],
                  deviations: .duplicateIdenticalContentLength),
    DeviationCase("transfer-encoding-with-content-length",
                  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
                  events: [head(200, "OK", ["Transfer-Encoding": "chunked", "Content-Length": "9"],
                                framing: .chunked), body("hi"), end(keepAlive: false)],
                  deviations: .transferEncodingWithContentLength),
    DeviationCase("transfer-encoding-in-http10", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nhi",
                  endOfStream: true,
                  events: [head(200, "OK", chunked, version: .http1_0, framing: .untilClose), body("hi"),
                           end(keepAlive: false)],
                  deviations: .transferEncodingInHTTP10),
    DeviationCase("bare-lf and obs-fold together", "HTTP/1.1 200 OK\nX-A: one\n two\nContent-Length: 0\n\n",
                  events: [head(200, "OK", ["X-A": "one two", "Content-Length": "0"], framing: .contentLength(0)),
                           end(keepAlive: true)],
                  deviations: [.bareLF, .obsFold], refused: .bareLF),
]

@Test("a response that needs a named deviation is accepted and records its name", arguments: deviationCases)
func deviationRecorded(_ testCase: DeviationCase) {
    ParserHarness.check(testCase.lenient)
}

@Test("strict mode refuses each named deviation with an error that names it", arguments: deviationCases)
func deviationRefused(_ testCase: DeviationCase) throws {
    var strict = testCase.lenient
    strict.limits.refusedDeviations = .all
    let whole = ParserHarness.run(strict, chunks: [strict.input]).outcome
    #expect(whole.error == .refused(testCase.refused))
    #expect(whole.error?.refusedDeviation == testCase.refused)
    let byteByByte = ParserHarness.run(strict, chunks: strict.input.map { [$0] }).outcome
    #expect(byteByByte.error == .refused(testCase.refused))
    let name = try #require(testCase.refused.names.first)
    #expect(whole.error.map(String.init(describing:))?.contains(name) == true)
}

@Test("refusing one deviation leaves the others tolerated")
func refusingOneDeviation() {
    var testCase = deviationCases[0].lenient
    testCase.limits.refusedDeviations = .obsFold
    ParserHarness.check(testCase)
}

@Test("a response that keeps to the grammar records no deviation, and strict mode accepts it")
func conformingResponse() {
    for refused in [HTTPDeviations(), .all] {
        var testCase = ParserCase(
            "conforming", chunkedHead + "2;a=b\r\nhi\r\n0\r\nX-T: 1\r\n\r\n",
            events: [head(200, "OK", chunked, framing: .chunked), body("hi"),
                     end(keepAlive: true, trailers: ["X-T": "1"])])
        testCase.limits.refusedDeviations = refused
        testCase.deviations = []
        ParserHarness.check(testCase)
        var emptyReason = ParserCase("empty reason after the SP", "HTTP/1.1 204 \r\n\r\n",
                                     events: [head(204, "", framing: .none), end(keepAlive: true)])
        emptyReason.limits.refusedDeviations = refused
        emptyReason.deviations = []
        ParserHarness.check(emptyReason)
    }
}

@Test("header-name-trailing-whitespace is never accepted, lenient or strict")
func headerNameTrailingWhitespace() {
    ParserHarness.check(.failing("whitespace before the colon", "HTTP/1.1 200 OK\r\nX-A : 1\r\n\r\n",
                                 .invalidHeaderName))
}

@Test("deviations are recorded per response: the next response starts with none")
func deviationsReset() throws {
    var parser = HTTPResponseParser()
    parser.expectResponse(requestMethod: "GET")
    parser.feed(bytes("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
    _ = try parser.next()
    _ = try parser.next()
    #expect(parser.responseDeviations == .missingReasonPhrase)
    parser.expectResponse(requestMethod: "GET")
    _ = try parser.next()
    _ = try parser.next()
    #expect(parser.isIdle)
    #expect(parser.responseDeviations.isEmpty)
}

@Test("every deviation has one stable kebab-case name that maps back to it")
func deviationNames() {
    let names = HTTPDeviations.all.names
    #expect(names == ["bare-lf", "obs-fold", "missing-reason-phrase", "empty-chunk-extension",
                      "whitespace-before-chunk-crlf", "duplicate-identical-content-length",
                      "transfer-encoding-with-content-length", "transfer-encoding-in-http10"])
    for name in names {
        #expect(HTTPDeviations(name: name)?.names == [name])
    }
    #expect(HTTPDeviations(name: "header-name-trailing-whitespace") == nil)
    #expect(HTTPDeviations().names.isEmpty)
    #expect(HTTPDeviations([.obsFold, .bareLF]).description == "bare-lf, obs-fold")
}
