// String+HTTPFieldName.swift
//
// Case-insensitive comparison for HTTP tokens (field names, parameter names, method names). Tokens are
// ASCII (RFC 9110 §5.1), so only ASCII letters fold; any other byte must match exactly. Works on the
// UTF-8 views, so it neither allocates nor bridges to NSString. Also HTTP whitespace trimming.

import Foundation

extension StringProtocol {
    // MARK: Comparison

    /// Whether `self` equals `other` when ASCII letters are compared without regard to case.
    func isEqualIgnoringASCIICase<Other: StringProtocol>(_ other: Other) -> Bool {
        // Most comparisons (a field name against the one looked for) fail on the length, which native
        // strings know without reading a byte.
        guard utf8.count == other.utf8.count else { return false }
        // Native strings are compared where they keep their bytes: the views' iterators cost some 100
        // instructions for a ten-letter name (`User-Agent` against `Connection` has the same length).
        if let equal = utf8.withContiguousStorageIfAvailable({ lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs in
                for index in lhs.indices where asciiLowercased(lhs[index]) != asciiLowercased(rhs[index]) {
                    return false
                }
                return true
            }
        }), let equal {
            return equal
        }
        var lhs = utf8.makeIterator()
        var rhs = other.utf8.makeIterator()
        while true {
            switch (lhs.next(), rhs.next()) {
            case (nil, nil):
                return true
            case let (left?, right?):
                if asciiLowercased(left) != asciiLowercased(right) {
                    return false
                }
            default:
                return false
            }
        }
    }
}

extension StringProtocol where UTF8View: BidirectionalCollection {
    // MARK: Whitespace

    /// `self` without leading and trailing HTTP whitespace (SP and HTAB, RFC 9110 §5.6.3). Works on the
    /// UTF-8 view: `trimmingCharacters(in:)` bridges to NSString, which showed up in per-response profiles.
    func trimmingHTTPWhitespace() -> String {
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !isWhitespace($0) }) ?? first
        return String(self[first...last])
    }
}

// MARK: Helpers

/// `byte` with an ASCII upper-case letter mapped to lower case; every other byte unchanged.
private func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
}
