// WebSocketUTF8Validator against the standard library's UTF-8 decoder: the same verdict for random byte
// strings biased towards multi-byte forms, fed whole and at every split; and every failure at the first
// byte that no continuation could make valid (checked by trying completions at every range boundary).

@testable import FWWire
import TestSupport
import Testing

@Suite struct WebSocketUTF8ValidatorTests {
    /// Bytes that hit every edge of the lead and continuation ranges.
    private static let interesting: [UInt8] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC,
        0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ]
    /// Continuation bytes at every range boundary, to complete a pending scalar.
    private static let continuations: [UInt8] = [0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF]

    /// The validator's verdict on `bytes` fed in `pieces` cut at `cuts`; nil when it failed.
    private func validate(_ bytes: [UInt8], cuts: [Int] = []) -> WebSocketUTF8Validator? {
        var validator = WebSocketUTF8Validator()
        var start = 0
        for end in cuts + [bytes.count] {
            let ok = bytes[start..<end].withUnsafeBytes { validator.validate($0) }
            guard ok else { return nil }
            start = end
        }
        return validator
    }

    /// True when some continuation bytes complete `prefix` into valid UTF-8.
    private func canComplete(_ prefix: [UInt8]) -> Bool {
        if String(validating: prefix, as: UTF8.self) != nil {
            return true
        }
        var tails: [[UInt8]] = [[]]
        for _ in 0..<3 {
            tails = tails.flatMap { tail in Self.continuations.map { tail + [$0] } }
            if tails.contains(where: { String(validating: prefix + $0, as: UTF8.self) != nil }) {
                return true
            }
        }
        return false
    }

    @Test func agreesWithTheStandardLibraryAtEverySplit() {
        var random = SplitMix64(seed: 6455)
        for _ in 0..<3000 {
            let count = Int.random(in: 0...12, using: &random)
            let input = (0..<count).map { _ in
                Bool.random(using: &random)
                    ? Self.interesting.randomElement(using: &random) ?? 0 : UInt8.random(in: 0...255, using: &random)
            }
            let expected = String(validating: input, as: UTF8.self) != nil
            for cut in 0...count {
                let verdict = validate(input, cuts: [cut]).map(\.isComplete) ?? false
                #expect(verdict == expected, "\(input) cut at \(cut)")
            }
        }
    }

    @Test func failsAtTheFirstByteThatCannotBeCompleted() {
        var random = SplitMix64(seed: 3629)
        for _ in 0..<3000 {
            let input = (0..<8).map { _ in Self.interesting.randomElement(using: &random) ?? 0 }
            var validator = WebSocketUTF8Validator()
            for index in input.indices {
                let ok = [input[index]].withUnsafeBytes { validator.validate($0) }
                #expect(ok == canComplete(Array(input[...index])), "\(input) at byte \(index)")
                guard ok else { break }
            }
        }
    }

    @Test func asciiRunsOfEveryLengthAroundAWord() {
        for count in 0..<40 {
            let ascii = [UInt8](repeating: 0x61, count: count)
            #expect(validate(ascii)?.isComplete == true)
            #expect(validate(ascii + [0x80]) == nil, "a stray continuation after \(count) ASCII bytes")
            #expect(validate(ascii + [0xE2, 0x82])?.isComplete == false, "a pending scalar after \(count)")
        }
    }
}
