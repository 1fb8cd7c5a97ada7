// The line scanner's eight-bytes-at-a-time search: line ends, bare CRs and NULs at every position within
// and across words, and the bytes the word test flags without being line ends (HTAB, VT, FF and the
// other CTLs below 0x0E) or must not flag (0x0E and up, obs-text). Every row runs the four ways.

import FWWire
import Testing

/// A 204 response whose one field line is `X: ` + `value`, so the field line is longer than a word.
private func field(_ value: [UInt8]) -> [UInt8] {
    bytes("HTTP/1.1 204 No Content\r\nX: ") + value + bytes("\r\n\r\n")
}

/// `count` bytes of printable filler.
private func filler(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(0x61 + $0 % 26) }
}

private func accepted(_ name: String, _ value: [UInt8], _ expected: String) -> ParserCase {
    ParserCase(
        name, field(value), events: [head(204, "No Content", ["X": expected], framing: .none), end(keepAlive: true)])
}

private let wordScanCases: [ParserCase] = {
    var cases: [ParserCase] = []
    // MARK: Line ends at every offset within a word, after 0, 1 and 2 whole words
    for length in 0...17 {
        let value = filler(length)
        cases.append(accepted("CRLF after \(length) value bytes", value, String(decoding: value, as: UTF8.self)))
        cases.append(
            ParserCase(
                "bare LF after \(length) value bytes", bytes("HTTP/1.1 204 No Content\nX: ") + value + bytes("\n\n"),
                events: [
                    head(204, "No Content", ["X": String(decoding: value, as: UTF8.self)], framing: .none),
                    end(keepAlive: true),
                ]))
    }
    // MARK: NUL and bare CR at every offset of a long value; NUL in a long name
    for position in 0..<17 {
        var withNUL = filler(17)
        withNUL[position] = 0x00
        cases.append(.failing("NUL at value byte \(position)", "", .invalidHeaderValue).with(input: field(withNUL)))
        var withCR = filler(17)
        withCR[position] = 0x0D
        cases.append(.failing("bare CR at value byte \(position)", "", .invalidLineEnding).with(input: field(withCR)))
    }
    cases.append(
        .failing("NUL in a long name", "", .invalidHeaderName)
            .with(input: bytes("HTTP/1.1 204 No Content\r\nLong-Field-\u{0}Name: v\r\n\r\n")))
    cases.append(
        .failing("NUL in a long reason phrase", "", .invalidStatusLine)
            .with(input: bytes("HTTP/1.1 204 No Content Whatsoever\u{0}\r\n\r\n")))
    cases.append(
        ParserCase(
            "NUL in a long trailer value",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nTrailer: 0123456789\u{0}\r\n\r\n",
            events: [head(200, "OK", ["Transfer-Encoding": "chunked"], framing: .chunked)],
            error: .invalidHeaderValue))
    // MARK: Flagged but not line ends, and never flagged
    cases.append(
        accepted("HTAB, VT, FF and other CTLs below CR kept", filler(9) + [0x09, 0x0B, 0x0C, 0x01, 0x08] + filler(9),
                 "abcdefghi\t\u{0B}\u{0C}\u{01}\u{08}abcdefghi"))
    cases.append(
        accepted("CTLs from 0x0E up kept", filler(5) + Array(0x0E...0x1F) + filler(5),
                 "abcde" + String(decoding: Array(0x0E...0x1F), as: UTF8.self) + "abcde"))
    cases.append(accepted("obs-text across words", Array("grüße, 😀 und café".utf8), "grüße, 😀 und café"))
    return cases
}()

extension ParserCase {
    /// The same case with other input bytes.
    fileprivate func with(input: [UInt8]) -> ParserCase {
        var copy = self
        copy.input = input
        return copy
    }
}

@Test("line scanning a word at a time", arguments: wordScanCases)
func wordScan(_ testCase: ParserCase) {
    ParserHarness.check(testCase)
}
