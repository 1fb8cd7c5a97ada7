// HTTPURLResponse+Metadata.swift
//
// The `URLResponse` metadata an `HTTPURLResponse` derives from its header fields, as FoundationNetworking
// derives it, with the corner cases made strict or safe:
// - mimeType: the Content-Type value without parameters, trimmed and lower-cased; nil when absent/empty.
// - textEncodingName: the Content-Type `charset` parameter (name matched case-insensitively), unquoted
//   and lower-cased.
// - expectedContentLength: Content-Length when it is 1*DIGIT and fits in Int64 (a list of identical
//   values, as duplicates combine to, counts as one value); otherwise -1.
// - suggestedFilename: Content-Disposition `filename*` (RFC 8187), else `filename`, with every path
//   component joined by "_" so no directory part survives ("/a/b" -> "_a_b"); else the URL's last path
//   component; else "Unknown". Names that end up empty, "." or ".." are not used.
// The expected length is derived when the response is made; the others are read from the fields when asked.

import Foundation

extension HTTPURLResponse {
    /// Response metadata derived from header fields. Only the expected length is derived when a response is
    /// made; the MIME type, the text encoding and the file name are read from the fields when asked (most
    /// callers never ask, and parsing Content-Type is a good part of what a response costs).
    enum Metadata {
        /// The declared body length of a response with `fields` (duplicates combined as
        /// `value(forHTTPHeaderField:)` combines them; `namesAreASCII` as `HTTPURLResponse.allASCII` says), or -1.
        static func expectedContentLength(_ fields: [(name: String, value: String)], namesAreASCII: Bool) -> Int64 {
            contentLength(contentLengthValue(fields, namesAreASCII: namesAreASCII)) ?? -1
        }

        /// The MIME type a Content-Type value names, lower-cased, without parameters; nil when absent or empty.
        static func mimeType(_ contentType: ParameterizedValue?) -> String? {
            contentType.flatMap { $0.value.isEmpty ? nil : $0.value.lowercased() }
        }

        /// The `charset` parameter of a Content-Type value, lower-cased; nil when absent or empty.
        static func textEncodingName(_ contentType: ParameterizedValue?) -> String? {
            contentType?.parameter(named: "charset").flatMap { $0.isEmpty ? nil : $0.lowercased() }
        }

        /// The combined Content-Length value, as `value(forHTTPHeaderField:)` reads it; ASCII names in one pass
        /// that compares only names of the right length.
        private static func contentLengthValue(_ fields: [(name: String, value: String)], namesAreASCII: Bool)
            -> String? {
            guard namesAreASCII else {
                return HTTPURLResponse.combinedValue(named: "Content-Length", in: fields, namesAreASCII: false)
            }
            var combined: String?
            for field in fields where field.name.utf8.count == 14 {
                guard field.name.isEqualIgnoringASCIICase("Content-Length") else { continue }
                combined = combined.map { $0 + ", " + field.value } ?? field.value
            }
            return combined
        }

        // MARK: Content-Length

        /// Whether `text` is one or more ASCII digits; its bytes are read in place (`utf8.allSatisfy` walked a
        /// String's iterator, some 100 instructions for every response).
        private static func isDigits<Text: StringProtocol>(_ text: Text) -> Bool {
            text.utf8.withContiguousStorageIfAvailable { !$0.isEmpty && $0.allSatisfy { $0 &- 0x30 < 10 } }
                ?? (!text.isEmpty && text.utf8.allSatisfy { $0 &- 0x30 < 10 })
        }

        /// The length a Content-Length value declares: 1*DIGIT within Int64, or a comma-separated list of
        /// such values that are all equal; `nil` for anything else.
        static func contentLength(_ value: String?) -> Int64? {
            guard let value else { return nil }
            // The usual case, one value of digits only, without splitting.
            if isDigits(value) { return Int64(value) }
            let lengths = value.split(separator: ",", omittingEmptySubsequences: false).map { element in
                let digits = element.trimmingHTTPWhitespace()
                return isDigits(digits) ? Int64(digits) : nil
            }
            guard let length = lengths[0], lengths.allSatisfy({ $0 == length }) else { return nil }
            return length
        }

        // MARK: File name

        /// The file name a Content-Disposition value suggests, made safe, or `nil` when it names none.
        static func filename(contentDisposition: String?) -> String? {
            guard let contentDisposition else { return nil }
            let disposition = ParameterizedValue(parsing: contentDisposition)
            let candidates = [
                disposition.parameter(named: "filename*").flatMap(HTTPURLResponse.decodeExtendedValue),
                disposition.parameter(named: "filename"),
            ]
            return candidates.lazy.compactMap { $0.flatMap(safeFilename) }.first
        }

        /// `name` with its path components joined by "_" (a leading "/" becomes a leading "_"), or `nil`
        /// when that leaves nothing usable ("", "." or "..").
        private static func safeFilename(_ name: String) -> String? {
            let components = (name as NSString).pathComponents.map { $0 == "/" ? "" : $0 }
            let joined = components.joined(separator: "_")
            return ["", ".", ".."].contains(joined) ? nil : joined
        }
    }
}
