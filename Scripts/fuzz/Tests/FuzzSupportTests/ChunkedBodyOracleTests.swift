// The oracle decodes what a chunked body means, and knows which bodies are plain.

import FWWire
import Testing

@testable import FuzzSupport

@Suite struct ChunkedBodyOracleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var input: String
        /// Body, trailer field count, length, plain; nil when the oracle cannot decode the input.
        var expected: (body: String, trailers: Int, length: Int, plain: Bool)?

        var testDescription: String {
            input.debugDescription
        }
    }

    @Test(arguments: [
        Case(input: "5\r\nhello\r\n0\r\n\r\n", expected: ("hello", 0, 15, true)),
        Case(input: "5\nhello\n0\n\nrest", expected: ("hello", 0, 11, true)),
        Case(input: "2\r\nab\r\n1\r\nc\r\n00\r\n\r\n", expected: ("abc", 0, 19, true)),
        Case(input: "A\r\n0123456789\r\n0\r\n\r\n", expected: ("0123456789", 0, 20, true)),
        Case(input: "3;x=\"y\"\r\nabc\r\n0\r\n\r\n", expected: ("abc", 0, 19, false)),
        Case(input: "3 \r\nabc\r\n0\r\n\r\n", expected: ("abc", 0, 14, false)),
        Case(input: "0\r\nA: 1\r\n b\r\nC: 2\r\n\r\n", expected: ("", 2, 21, false)),
        Case(input: "00000000000000001\r\nx\r\n0\r\n\r\n", expected: ("x", 0, 27, false)),
        Case(input: "", expected: nil),
        Case(input: "\r\n", expected: nil),
        Case(input: "x\r\n", expected: nil),
        Case(input: "5\r\nhel", expected: nil),
        Case(input: "5\r\nhelloX", expected: nil),
        Case(input: "0\r\nA: 1\r\n", expected: nil),
        Case(input: "8000000000000000\r\n", expected: nil),
        Case(input: "7fffffffffffffff\r\nx", expected: nil),
    ])
    func decodes(_ test: Case) {
        let decoded = ChunkedBodyOracle(limits: HTTPLimits()).decode(bytes(test.input))
        guard let expected = test.expected else {
            #expect(decoded == nil)
            return
        }
        #expect(
            decoded
                == ChunkedBodyOracle.Decoded(
                    body: bytes(expected.body), trailerFieldCount: expected.trailers, length: expected.length,
                    isPlain: expected.plain))
    }

    @Test func digitsBeyondTheLimitAreNotPlain() {
        let decoded = ChunkedBodyOracle(limits: FuzzInput.smallLimits).decode(bytes("00005\r\nhello\r\n0\r\n\r\n"))
        #expect(decoded?.body == bytes("hello"))
        #expect(decoded?.isPlain == false)
    }
}
