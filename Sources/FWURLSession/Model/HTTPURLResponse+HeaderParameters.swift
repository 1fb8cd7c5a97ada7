// HTTPURLResponse+HeaderParameters.swift
//
// Splits a header value of the form `value *( ";" name [ "=" value ] )` (Content-Type,
// Content-Disposition) into its parts, and decodes RFC 8187 extended parameter values (`filename*`).
//
// Splitting follows FoundationNetworking's reading, made RFC-correct where it was not: a `;` inside a
// quoted string does not split; quotes are removed; inside quotes a backslash escapes the next character
// and is dropped (an RFC 9110 quoted-pair); outside quotes a backslash also escapes the next character
// (so `\;` does not split) but is kept. The value and each parameter name and value are trimmed of
// whitespace; parameter names are matched case-insensitively.

import Foundation

extension HTTPURLResponse {
    // MARK: Parameterised value

    /// A header value split into its leading value and its parameters.
    struct ParameterizedValue {
        /// One `name[=value]` parameter.
        struct Parameter: Equatable {
            /// The parameter name, as written.
            var name: String
            /// The unquoted value, or `nil` when the parameter has no `=`.
            var value: String?
        }

        /// The part before the first unquoted `;`, trimmed.
        var value: String
        /// The parameters in order; empty segments (as in `a;;b` or a trailing `;`) are left out.
        var parameters: [Parameter]

        /// Splits `field` into its value and parameters.
        init(parsing field: String) {
            let segments = Self.segments(of: field)
            value = segments[0].trimmingHTTPWhitespace()
            parameters = segments.dropFirst().compactMap { segment in
                let trimmed = segment.trimmingHTTPWhitespace()
                guard !trimmed.isEmpty else { return nil }
                guard let equals = trimmed.firstIndex(of: "=") else {
                    return Parameter(name: trimmed, value: nil)
                }
                return Parameter(
                    name: trimmed[..<equals].trimmingHTTPWhitespace(),
                    value: trimmed[trimmed.index(after: equals)...].trimmingHTTPWhitespace()
                )
            }
        }

        /// The value of the first parameter named `name` (case-insensitive) that has a value.
        func parameter(named name: String) -> String? {
            parameters.first { $0.name.isEqualIgnoringASCIICase(name) && $0.value != nil }?.value
        }

        /// The text between unquoted `;`s, quotes and quoted-pair backslashes removed; never empty.
        private static func segments(of field: String) -> [String] {
            // Most values (`text/html`, `application/json`) have no parameter, quote or escape: the scalar
            // walk below would rebuild them unchanged.
            guard field.utf8.contains(where: isSplittingOrQuoting) else { return [field] }
            var segments: [String] = []
            var current = String.UnicodeScalarView()
            var isQuoted = false
            var scalars = field.unicodeScalars.makeIterator()
            while let scalar = scalars.next() {
                switch (isQuoted, scalar) {
                case (false, ";"):
                    segments.append(String(current))
                    current = String.UnicodeScalarView()
                case (_, "\""):
                    isQuoted.toggle()
                case (true, "\\"):
                    if let escaped = scalars.next() {
                        current.append(escaped)
                    }
                case (false, "\\"):
                    current.append(scalar)
                    if let escaped = scalars.next() {
                        current.append(escaped)
                    }
                default:
                    current.append(scalar)
                }
            }
            segments.append(String(current))
            return segments
        }
    }

    /// Whether `byte` is one that `segments(of:)` treats specially: a semicolon, a quote or a backslash.
    private static func isSplittingOrQuoting(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    // MARK: Extended values (RFC 8187)

    /// Decodes an RFC 8187 `ext-value` (`charset'[language]'percent-encoded`), as used by `filename*`.
    /// Supports the UTF-8 and ISO-8859-1 charsets; returns `nil` for anything malformed or unsupported.
    static func decodeExtendedValue(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = percentDecoded(parts[2]) else { return nil }
        if parts[0].isEqualIgnoringASCIICase("UTF-8") {
            return String(validating: bytes, as: UTF8.self)
        }
        if parts[0].isEqualIgnoringASCIICase("ISO-8859-1") {
            var decoded = String.UnicodeScalarView()
            decoded.append(contentsOf: bytes.map { Unicode.Scalar($0) })
            return String(decoded)
        }
        return nil
    }

    /// The bytes of `text` with every `%XX` replaced by the byte it encodes; `nil` for a broken escape.
    private static func percentDecoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = input.next().flatMap(hexDigitValue),
                  let low = input.next().flatMap(hexDigitValue)
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The value of an ASCII hexadecimal digit, either case; `nil` for any other byte.
    private static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"):
            return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"):
            return byte - UInt8(ascii: "A") + 10
        default:
            return nil
        }
    }
}
