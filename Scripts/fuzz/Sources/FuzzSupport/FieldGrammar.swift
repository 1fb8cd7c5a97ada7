// The grammar rules of CONFORMANCE.md that every field and reason phrase the parser reports must obey,
// restated here rather than borrowed from FWWire, so that a mistake in FWWire's own byte tables shows up
// as a finding.

import FWWire

/// Checks of parser output against the field and reason-phrase grammar.
enum FieldGrammar {
    /// `tchar` (RFC 9110 §5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// SP or HTAB.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// Checks every field of a head or trailer section: a non-empty token name, a value without NUL, CR
    /// or LF and without surrounding whitespace, and no more fields than the limit allows.
    static func checkFields(_ fields: HTTPHeaders, limits: HTTPLimits, section: String) {
        fuzzCheck(fields.count <= limits.maxHeaderCount, "\(section): \(fields.count) fields over the limit")
        for index in 0..<fields.count {
            let name = fields.rawName(at: index)
            fuzzCheck(!name.isEmpty && name.allSatisfy(isTokenByte), "\(section): bad name \(Array(name))")
            let value = fields.rawValue(at: index)
            fuzzCheck(
                !value.contains(0x00) && !value.contains(0x0D) && !value.contains(0x0A),
                "\(section): NUL, CR or LF passed through in \(Array(value))")
            if let first = value.first, let last = value.last {
                fuzzCheck(
                    !isWhitespace(first) && !isWhitespace(last), "\(section): untrimmed value \(Array(value))")
            }
        }
    }

    /// Checks a reason phrase: HTAB, SP, VCHAR and obs-text only.
    static func checkReason(_ reason: String) {
        for scalar in reason.unicodeScalars {
            let value = scalar.value
            fuzzCheck(
                value <= 0xFF && (value == 0x09 || (value >= 0x20 && value != 0x7F)),
                "reason phrase holds U+\(String(value, radix: 16))")
        }
    }
}
