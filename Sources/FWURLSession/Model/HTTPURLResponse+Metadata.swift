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

import Foundation

extension HTTPURLResponse {
    /// Response metadata derived from header fields.
    struct Metadata {
        /// The body's MIME type, lower-cased, without parameters.
        var mimeType: String?
        /// The body's charset, lower-cased.
        var textEncodingName: String?
        /// The declared body length, or -1.
        var expectedContentLength: Int64
        /// A file name for saving the body; never empty.
        var suggestedFilename: String

        /// Derives the metadata for a response from `url` with `fields` (duplicates combined as
        /// `value(forHTTPHeaderField:)` combines them; `namesAreASCII` as `HTTPURLResponse.allASCII` says).
        init(url: URL, fields: [(name: String, value: String)], namesAreASCII: Bool) {
            let read = Self.fieldsRead(fields, namesAreASCII: namesAreASCII)
            let contentType = read.contentType.map(ParameterizedValue.init(parsing:))
            mimeType = contentType.flatMap { $0.value.isEmpty ? nil : $0.value.lowercased() }
            textEncodingName = contentType?.parameter(named: "charset").flatMap { $0.isEmpty ? nil : $0.lowercased() }
            expectedContentLength = Self.contentLength(read.contentLength) ?? -1
            suggestedFilename = Self.filename(contentDisposition: read.contentDisposition)
                ?? URLResponse.suggestedFilename(fromLastPathComponentOf: url)
        }

        /// The combined values of the three fields the metadata comes from, as `value(forHTTPHeaderField:)`
        /// reads them; ASCII names in one pass that compares only names of the right length.
        private static func fieldsRead(_ fields: [(name: String, value: String)], namesAreASCII: Bool)
            -> (contentType: String?, contentLength: String?, contentDisposition: String?) {
            guard namesAreASCII else {
                func value(_ name: String) -> String? {
                    HTTPURLResponse.combinedValue(named: name, in: fields, namesAreASCII: false)
                }
                return (value("Content-Type"), value("Content-Length"), value("Content-Disposition"))
            }
            func joined(_ combined: String?, _ value: String) -> String { combined.map { $0 + ", " + value } ?? value }
            var read: (contentType: String?, contentLength: String?, contentDisposition: String?) = (nil, nil, nil)
            for field in fields {
                switch field.name.utf8.count {
                case 12 where field.name.isEqualIgnoringASCIICase("Content-Type"):
                    read.contentType = joined(read.contentType, field.value)
                case 14 where field.name.isEqualIgnoringASCIICase("Content-Length"):
                    read.contentLength = joined(read.contentLength, field.value)
                case 19 where field.name.isEqualIgnoringASCIICase("Content-Disposition"):
                    read.contentDisposition = joined(read.contentDisposition, field.value)
                default:
                    break
                }
            }
            return read
        }

        // MARK: Content-Length

        /// The length a Content-Length value declares: 1*DIGIT within Int64, or a comma-separated list of
        /// such values that are all equal; `nil` for anything else.
        private static func contentLength(_ value: String?) -> Int64? {
            guard let value else { return nil }
            // The usual case, one value of digits only, without splitting.
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) { return Int64(value) }
            let lengths = value.split(separator: ",", omittingEmptySubsequences: false).map { element in
                let digits = element.trimmingHTTPWhitespace()
                let isNumber = !digits.isEmpty && digits.utf8.allSatisfy { (0x30...0x39).contains($0) }
                return isNumber ? Int64(digits) : nil
            }
            guard let length = lengths[0], lengths.allSatisfy({ $0 == length }) else { return nil }
            return length
        }

        // MARK: File name

        /// The file name a Content-Disposition value suggests, made safe, or `nil` when it names none.
        private static func filename(contentDisposition: String?) -> String? {
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
