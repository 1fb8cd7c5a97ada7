// CONFORMANCE.md "Message body framing", rules 1-5 in order, as rows of the pure function
// ResponseFramingRules.framing(requestMethod:head:). How the parser reads each framing is in
// HTTPResponseParserTests and ChunkedDecoderTests.

import FWWire
import Testing

struct FramingCase: Sendable, CustomTestStringConvertible {
    var name: String
    var method = "GET"
    var status = 200
    var version = HTTPVersion.http1_1
    var headers: HTTPHeaders
    var expected: Result<Expected, HTTPParseError>

    struct Expected: Equatable, Sendable {
        var framing: BodyFraming
        var forbidsReuse: Bool
    }

    var testDescription: String {
        name
    }

    init(
        _ name: String, method: String = "GET", status: Int = 200, version: HTTPVersion = .http1_1,
        _ headers: HTTPHeaders, _ framing: BodyFraming, forbidsReuse: Bool = false
    ) {
        self.name = name
        self.method = method
        self.status = status
        self.version = version
        self.headers = headers
        expected = .success(Expected(framing: framing, forbidsReuse: forbidsReuse))
    }

    init(_ name: String, version: HTTPVersion = .http1_1, _ headers: HTTPHeaders, error: HTTPParseError) {
        self.name = name
        self.version = version
        self.headers = headers
        expected = .failure(error)
    }
}

private let chunkedTE: HTTPHeaders = ["Transfer-Encoding": "chunked"]

private let framingCases: [FramingCase] = [
    // MARK: Rule 1: no body whatever the headers say
    FramingCase("HEAD with Content-Length", method: "HEAD", ["Content-Length": "5"], .none),
    FramingCase("HEAD with chunked", method: "HEAD", chunkedTE, .none),
    FramingCase("lower-case head is not HEAD", method: "head", ["Content-Length": "5"], .contentLength(5)),
    FramingCase("204 with Content-Length", status: 204, ["Content-Length": "5"], .none),
    FramingCase("304 with chunked", status: 304, chunkedTE, .none),
    FramingCase("1xx", status: 103, ["Content-Length": "5"], .none),
    FramingCase("2xx to CONNECT with Content-Length", method: "CONNECT", ["Content-Length": "5"], .none),
    FramingCase("2xx to CONNECT with chunked", method: "CONNECT", status: 204, chunkedTE, .none),
    FramingCase("407 to CONNECT has its body", method: "CONNECT", status: 407, ["Content-Length": "5"],
                .contentLength(5)),

    // MARK: Rule 3: Transfer-Encoding
    FramingCase("chunked", chunkedTE, .chunked),
    FramingCase("chunked, any case", ["Transfer-Encoding": "ChUnKeD"], .chunked),
    FramingCase("gzip then chunked", ["Transfer-Encoding": "gzip, chunked"], .chunked),
    FramingCase(
        "codings over two fields", ["Transfer-Encoding": "gzip", "Transfer-Encoding": "chunked"], .chunked),
    FramingCase("empty list elements ignored", ["Transfer-Encoding": "chunked , ,"], .chunked),
    FramingCase("chunked not final", ["Transfer-Encoding": "chunked, gzip"], error: .unsupportedTransferCoding),
    FramingCase("deflate then chunked", ["Transfer-Encoding": "Deflate, chunked"], .chunked),
    FramingCase("x-gzip then chunked", ["Transfer-Encoding": "x-gzip, chunked"], .chunked),
    FramingCase("an unknown coding", ["Transfer-Encoding": "compress, chunked"], error: .unsupportedTransferCoding),
    FramingCase("br is no transfer coding", ["Transfer-Encoding": "br, chunked"], error: .unsupportedTransferCoding),
    FramingCase("identity is obsolete", ["Transfer-Encoding": "identity"], error: .unsupportedTransferCoding),
    FramingCase("a coding with a parameter", ["Transfer-Encoding": "gzip;q=1, chunked"],
                error: .unsupportedTransferCoding),
    FramingCase("chunked twice in a list", ["Transfer-Encoding": "chunked, chunked"], error: .invalidTransferEncoding),
    FramingCase("chunked twice over two fields", ["Transfer-Encoding": "chunked", "transfer-encoding": "Chunked"],
                error: .invalidTransferEncoding),
    FramingCase("chunked, another coding, chunked", ["Transfer-Encoding": "chunked, gzip, chunked"],
                error: .invalidTransferEncoding),
    FramingCase("no chunked", ["Transfer-Encoding": "gzip"], .untilClose, forbidsReuse: true),
    FramingCase("empty Transfer-Encoding", ["Transfer-Encoding": ""], .untilClose, forbidsReuse: true),
    FramingCase(
        "TE and CL: TE wins, no reuse", ["Transfer-Encoding": "chunked", "Content-Length": "5"], .chunked,
        forbidsReuse: true),
    FramingCase(
        "TE and an invalid CL: CL ignored", ["Content-Length": "abc", "Transfer-Encoding": "chunked"], .chunked,
        forbidsReuse: true),
    FramingCase("TE in HTTP/1.0", version: .http1_0, chunkedTE, .untilClose, forbidsReuse: true),
    FramingCase("gzip TE in HTTP/1.0", version: .http1_0, ["Transfer-Encoding": "gzip, chunked"],
                error: .unsupportedTransferCoding),

    // MARK: Rule 4: Content-Length
    FramingCase("Content-Length", ["Content-Length": "5"], .contentLength(5)),
    FramingCase("Content-Length 0", ["Content-Length": "0"], .contentLength(0)),
    FramingCase("leading zeros", ["Content-Length": "0005"], .contentLength(5)),
    FramingCase("Int64.max", ["Content-Length": "9223372036854775807"], .contentLength(Int64.max)),
    FramingCase("repeated identical", ["Content-Length": "5", "content-length": "5"], .contentLength(5)),
    FramingCase("identical list", ["Content-Length": "5, 5 ,5"], .contentLength(5)),
    FramingCase("identical values, different spelling", ["Content-Length": "5, 05"], .contentLength(5)),
    FramingCase(
        "conflicting repeats", ["Content-Length": "5", "Content-Length": "6"], error: .conflictingContentLength),
    FramingCase("conflicting list", ["Content-Length": "5, 6"], error: .conflictingContentLength),
    FramingCase("sign", ["Content-Length": "+5"], error: .invalidContentLength),
    FramingCase("negative", ["Content-Length": "-5"], error: .invalidContentLength),
    FramingCase("hex", ["Content-Length": "0x5"], error: .invalidContentLength),
    FramingCase("space inside", ["Content-Length": "5 5"], error: .invalidContentLength),
    FramingCase("empty", ["Content-Length": ""], error: .invalidContentLength),
    FramingCase("empty list element", ["Content-Length": "5,"], error: .invalidContentLength),
    FramingCase("overflow", ["Content-Length": "9223372036854775808"], error: .invalidContentLength),
    FramingCase("far overflow", ["Content-Length": "99999999999999999999999"], error: .invalidContentLength),

    // MARK: Rule 5: read until close
    FramingCase("no framing headers", ["Content-Type": "text/plain"], .untilClose, forbidsReuse: true),
    FramingCase("no framing headers, HTTP/1.0", version: .http1_0, [:], .untilClose, forbidsReuse: true),
]

@Test("body framing rules", arguments: framingCases)
func bodyFraming(_ testCase: FramingCase) {
    let head = HTTPResponseHead(
        version: testCase.version, status: testCase.status, reason: "", headers: testCase.headers)
    let result = Result { () throws(HTTPParseError) in
        let (framing, forbidsReuse) = try ResponseFramingRules.framing(requestMethod: testCase.method, head: head)
        return FramingCase.Expected(framing: framing, forbidsReuse: forbidsReuse)
    }
    #expect(result == testCase.expected)
}
