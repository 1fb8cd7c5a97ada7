// The control byte: methods, limits and split position.

import FWWire
import Testing

@testable import FuzzSupport

@Suite struct FuzzInputTests {
    struct Case: Sendable {
        var control: UInt8
        var first: String
        var later: String
        var small: Bool
        /// The split offset for a 62-byte stream.
        var split: Int
    }

    @Test(arguments: [
        Case(control: 0b00000_000, first: "GET", later: "GET", small: false, split: 0),
        Case(control: 0b00000_001, first: "HEAD", later: "GET", small: false, split: 0),
        Case(control: 0b00000_010, first: "GET", later: "HEAD", small: false, split: 0),
        Case(control: 0b00000_100, first: "GET", later: "GET", small: true, split: 0),
        Case(control: 0b00001_000, first: "GET", later: "GET", small: false, split: 2),
        Case(control: 0b10000_111, first: "HEAD", later: "HEAD", small: true, split: 32),
        Case(control: 0b11111_000, first: "GET", later: "GET", small: false, split: 62),
    ])
    func controlByte(_ test: Case) {
        let input = FuzzInput([test.control] + [UInt8](repeating: 0x41, count: 62))
        #expect(input.firstMethod == test.first)
        #expect(input.laterMethod == test.later)
        #expect(input.limits == (test.small ? FuzzInput.smallLimits : HTTPLimits()))
        #expect(input.splitOffset == test.split)
        #expect(input.stream.count == 62)
    }

    @Test func emptyInputIsAnEmptyStream() {
        let input = FuzzInput([UInt8]())
        #expect(input.stream.isEmpty)
        #expect(input.splitOffset == 0)
        #expect(input.firstMethod == "GET")
        #expect(input.limits == HTTPLimits())
    }

    @Test func smallLimitsAreBelowTheDefaults() {
        let small = FuzzInput.smallLimits
        let defaults = HTTPLimits()
        #expect(small.maxLineLength < defaults.maxLineLength)
        #expect(small.maxHeadSize < defaults.maxHeadSize)
        #expect(small.maxHeaderCount < defaults.maxHeaderCount)
        #expect(small.maxChunkSizeDigits < defaults.maxChunkSizeDigits)
        #expect(small.maxChunkExtensionLength < defaults.maxChunkExtensionLength)
        #expect(small.maxTrailerSize < defaults.maxTrailerSize)
    }
}
