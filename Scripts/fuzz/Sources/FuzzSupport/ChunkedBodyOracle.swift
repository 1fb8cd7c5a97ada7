// A second, deliberately simple chunked decoder (RFC 9112 §7.1) to compare FWWire's against. It is
// lenient where FWWire is strict: anything between the size digits and the LF that ends the size line
// is skipped, and trailer lines are only counted. That is enough for two properties:
//
// - whatever FWWire accepts, the oracle decodes too, to the same body, the same number of trailer fields
//   and the same length (an accepted body can only end its size line at the first LF: LF is allowed
//   neither in extensions nor in quoted strings);
// - a *plain* body (digits within the limit, CRLF or LF line ends, no extensions, no whitespace, no
//   trailer fields) that the oracle decodes completely must be accepted by FWWire.

import FWWire

/// A simple whole-input chunked decoder used as the fuzzing oracle.
struct ChunkedBodyOracle {
    /// A body decoded from the start of the input.
    struct Decoded: Equatable {
        /// The chunk data, concatenated.
        var body: [UInt8]
        /// Trailer field lines (obs-fold continuation lines not counted).
        var trailerFieldCount: Int
        /// Bytes from the first size digit through the blank line that ends the trailer section.
        var length: Int
        /// True when nothing but digits, line ends and data appeared (see the file comment).
        var isPlain: Bool
    }

    let limits: HTTPLimits

    /// Decodes the chunked body at the start of `bytes`, or nil when it is incomplete or not chunked.
    func decode(_ bytes: [UInt8]) -> Decoded? {
        var decoded = Decoded(body: [], trailerFieldCount: 0, length: 0, isPlain: true)
        var index = 0
        while true {
            guard let (size, digitCount, afterDigits) = Self.sizeDigits(in: bytes, from: index),
                let lineFeed = bytes[afterDigits...].firstIndex(of: 0x0A)
            else { return nil }
            let rest = bytes[afterDigits..<lineFeed]
            if digitCount > limits.maxChunkSizeDigits || !(rest.isEmpty || rest.elementsEqual([0x0D])) {
                decoded.isPlain = false
            }
            index = lineFeed + 1
            if size == 0 {
                break
            }
            guard size <= bytes.count - index else { return nil }
            decoded.body += bytes[index..<index + Int(size)]
            index += Int(size)
            if bytes[index...].starts(with: [0x0D, 0x0A]) {
                index += 2
            } else if bytes[index...].starts(with: [0x0A]) {
                index += 1
            } else {
                return nil
            }
        }
        while true {
            guard let lineFeed = bytes[index...].firstIndex(of: 0x0A) else { return nil }
            var line = bytes[index..<lineFeed]
            if line.last == 0x0D {
                line = line.dropLast()
            }
            index = lineFeed + 1
            guard let first = line.first else { break }
            decoded.isPlain = false
            if !FieldGrammar.isWhitespace(first) {
                decoded.trailerFieldCount += 1
            }
        }
        decoded.length = index
        return decoded
    }

    /// The hex digits at `start`: their value, their count, and the index after them; nil when there are
    /// none or the value does not fit in Int64.
    private static func sizeDigits(in bytes: [UInt8], from start: Int) -> (Int64, Int, Int)? {
        var value: Int64 = 0
        var index = start
        while index < bytes.count, let digit = hexValue(bytes[index]) {
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 16)
            let (sum, overflowB) = shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            value = sum
            index += 1
        }
        guard index > start else { return nil }
        return (value, index - start, index)
    }

    private static func hexValue(_ byte: UInt8) -> Int64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int64(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int64(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
