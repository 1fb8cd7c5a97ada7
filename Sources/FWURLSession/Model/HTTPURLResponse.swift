// HTTPURLResponse.swift
//
// The HTTP response head, source-compatible with FoundationNetworking's `HTTPURLResponse`, plus an
// additive wire view (`orderedHeaderFields`: every field as received, in order, duplicates kept).
//
// `allHeaderFields` follows FoundationNetworking: duplicate fields are joined with ", " (Set-Cookie
// included; `HTTPCookie` splits that list again), and names are canonicalised with `capitalized`
// ("content-type" -> "Content-Type") except names starting with "X-"/"x-", which keep their spelling,
// and WWW-Authenticate, which is spelt "WWW-Authenticate". Fields whose names differ only in case are
// combined under the first one's canonical name. The metadata derived from the fields (MIME type, text
// encoding, expected length, suggested file name) is computed in `HTTPURLResponse+Metadata.swift`.

import Foundation
import FWTransport

/// The response to an HTTP URL load (FoundationNetworking's `HTTPURLResponse`).
///
/// `@unchecked Sendable`: like `URLResponse`, every stored property is assigned once during
/// initialisation and never written again, except the `allHeaderFields` cache (under its lock).
open class HTTPURLResponse: URLResponse, @unchecked Sendable { // immutable after init; cache: LockedBox
    // MARK: Properties

    /// The HTTP status code of the response.
    public let statusCode: Int

    /// Every header field as received, in order, names spelt as received, duplicates kept.
    ///
    /// This is an addition to FoundationNetworking's API for tools that need the wire view. A response
    /// created from a dictionary lists its fields sorted by name (case-insensitively).
    public let orderedHeaderFields: [(name: String, value: String)]

    /// The HTTP version of the status line, such as `"HTTP/1.1"`, if known.
    let httpVersion: String?

    /// The first spelling of each distinct field name, in order, with its lower-cased form.
    private let distinctNames: [(lowercased: String, name: String)]

    /// `canonicalHeaderFields`, made on first use: canonicalising names (`capitalized`) is the costliest
    /// part of a response, and most callers only use `value(forHTTPHeaderField:)`.
    private let canonicalCache = LockedBox<[String: String]?>(nil)

    /// The combined field values keyed by lower-cased name, for case-insensitive lookup.
    private let headerValuesByLowercasedName: [String: String]

    /// All header fields, duplicates combined and names canonicalised as FoundationNetworking does; the
    /// keys are `String`s and the values `String`s.
    public var allHeaderFields: [AnyHashable: Any] {
        canonicalHeaderFields
    }

    /// The combined fields under their canonical names; the storage behind `allHeaderFields`.
    private var canonicalHeaderFields: [String: String] {
        canonicalCache.withLock { cache in
            if let cache { return cache }
            var canonical: [String: String] = [:]
            for entry in distinctNames {
                canonical[Self.canonicalName(entry.name)] = headerValuesByLowercasedName[entry.lowercased]
            }
            cache = canonical
            return canonical
        }
    }

    // MARK: Initialisation

    /// Creates a response from a status code and a dictionary of header fields. Never returns `nil`; the
    /// initialiser is failable for compatibility with FoundationNetworking. (Designated, not delegating to
    /// the wire initialiser below, so that subclasses in other modules inherit it.)
    public init?(url: URL, statusCode: Int, httpVersion: String?, headerFields: [String: String]?) {
        let fields = (headerFields ?? [:])
            .sorted { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }
            .map { (name: $0.key, value: $0.value) }
        let combined = HTTPURLResponse.combine(fields)
        let metadata = Metadata(url: url, fieldsByLowercasedName: combined.byLowercasedName)
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.orderedHeaderFields = fields
        self.distinctNames = combined.distinctNames
        self.headerValuesByLowercasedName = combined.byLowercasedName
        super.init(
            url: url,
            mimeType: metadata.mimeType,
            expectedContentLength: metadata.expectedContentLength,
            textEncodingName: metadata.textEncodingName,
            suggestedFilename: metadata.suggestedFilename
        )
    }

    /// Creates a response from a parsed status line and the header fields in the order received; the
    /// transport glue calls this.
    init(url: URL, statusCode: Int, httpVersion: String?, orderedHeaderFields: [(name: String, value: String)]) {
        let combined = HTTPURLResponse.combine(orderedHeaderFields)
        let metadata = Metadata(url: url, fieldsByLowercasedName: combined.byLowercasedName)
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.orderedHeaderFields = orderedHeaderFields
        self.distinctNames = combined.distinctNames
        self.headerValuesByLowercasedName = combined.byLowercasedName
        super.init(
            url: url,
            mimeType: metadata.mimeType,
            expectedContentLength: metadata.expectedContentLength,
            textEncodingName: metadata.textEncodingName,
            suggestedFilename: metadata.suggestedFilename
        )
    }

    /// Reads a response `encode(with:)` wrote (see `HTTPURLResponse+Coding.swift`): the status line and every
    /// field in its order come back; nil when `coder` is not keyed or the archive is not an HTTP response's.
    /// (Designated, so that subclasses in other modules inherit it.)
    public required init?(coder: NSCoder) {
        guard let archived = ArchivedHTTPHead(coder: coder) else { return nil }
        let combined = HTTPURLResponse.combine(archived.fields)
        statusCode = archived.statusCode
        httpVersion = archived.httpVersion
        orderedHeaderFields = archived.fields
        distinctNames = combined.distinctNames
        headerValuesByLowercasedName = combined.byLowercasedName
        let metadata = Metadata(url: archived.url, fieldsByLowercasedName: combined.byLowercasedName)
        super.init(url: archived.url, mimeType: metadata.mimeType, expectedContentLength: metadata.expectedContentLength,
                   textEncodingName: metadata.textEncodingName, suggestedFilename: metadata.suggestedFilename)
    }

    /// Writes the response to a keyed `coder`: the metadata, the status line and every field in order.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        guard coder.allowsKeyedCoding else { return }
        encodeHead(with: coder)
    }

    // MARK: Lookup

    /// The value of the header field named `field` (case-insensitive), duplicates joined with ", ".
    public func value(forHTTPHeaderField field: String) -> String? {
        headerValuesByLowercasedName[field.lowercased()]
    }

    // MARK: Status text

    /// A text describing `statusCode` ("OK", "Not Found", ...), the same texts FoundationNetworking returns.
    open class func localizedString(forStatusCode statusCode: Int) -> String {
        statusText(forStatusCode: statusCode)
    }

    // MARK: Description

    /// A readable summary: URL, status and the header fields sorted by name.
    open override var description: String {
        var text = "<\(type(of: self)) \(Unmanaged.passUnretained(self).toOpaque())> "
        text += "{ URL: \(url?.absoluteString ?? "(null)") }{ status: \(statusCode), headers {\n"
        for (name, value) in canonicalHeaderFields.sorted(by: { $0.key < $1.key }) {
            text += "   \"\(name)\" = \"\(value)\";\n"
        }
        return text + "} }"
    }

    // MARK: Combining fields

    /// The lower-cased-name index for `fields` and the distinct names in order: values of fields whose
    /// names are equal ignoring case are joined with ", " in order; the first name decides the key.
    private static func combine(
        _ fields: [(name: String, value: String)]
    ) -> (distinctNames: [(lowercased: String, name: String)], byLowercasedName: [String: String]) {
        var distinctNames: [(lowercased: String, name: String)] = []
        distinctNames.reserveCapacity(fields.count)
        var byLowercasedName: [String: String] = [:]
        byLowercasedName.reserveCapacity(fields.count)
        for field in fields where !field.name.isEmpty {
            let lowercased = field.name.lowercased()
            if let existing = byLowercasedName[lowercased] {
                byLowercasedName[lowercased] = existing + ", " + field.value
            } else {
                byLowercasedName[lowercased] = field.value
                distinctNames.append((lowercased, field.name))
            }
        }
        return (distinctNames, byLowercasedName)
    }

    /// `name` as FoundationNetworking reports it in `allHeaderFields`.
    private static func canonicalName(_ name: String) -> String {
        if name.hasPrefix("X-") || name.hasPrefix("x-") {
            return name
        }
        if name.isEqualIgnoringASCIICase("WWW-Authenticate") {
            return "WWW-Authenticate"
        }
        return name.capitalized
    }
}
