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
/// initialisation and never written again, except what is derived on first use (`derived`, under the lock
/// `derivedLocks` picks for the response).
open class HTTPURLResponse: URLResponse, @unchecked Sendable { // immutable after init; derived: derivedLocks
    // MARK: Properties

    /// The HTTP status code of the response.
    public let statusCode: Int

    /// Every header field as received, in order, names spelt as received, duplicates kept.
    ///
    /// This is an addition to FoundationNetworking's API for tools that need the wire view. A response
    /// created from a dictionary lists its fields sorted by name (case-insensitively).
    public var orderedHeaderFields: [(name: String, value: String)] {
        withDerived { Self.fields(&$0, wire: wire) }
    }

    /// The head's fields as the parser left them, when the response came from the wire: lookups read them in
    /// place, and `orderedHeaderFields` (a `String` pair per field, the costliest part of a response) is made
    /// only when somebody asks for it. nil for a response made from fields, a dictionary or an archive.
    private let wire: HTTPHeaders?

    /// What is made on first use: the fields of a wire response, and `canonicalHeaderFields`.
    private struct Derived {
        var fields: [(name: String, value: String)]?
        var canonical: [String: String]?
    }

    /// Read and written only under the response's lock of `derivedLocks` (`withDerived`).
    private var derived: Derived

    /// The locks of every response's `derived` (`StripedLocks`): a lock of each response's own was an
    /// allocation and a mutex made and destroyed per response.
    private static let derivedLocks = StripedLocks(count: 64)

    /// The HTTP version of the status line, such as `"HTTP/1.1"`, if known.
    let httpVersion: String?

    /// Whether every field name is ASCII (always so for a parsed head): names are then compared ignoring
    /// ASCII case instead of lower-casing both.
    private let namesAreASCII: Bool

    /// All header fields, duplicates combined and names canonicalised as FoundationNetworking does; the
    /// keys are `String`s and the values `String`s.
    public var allHeaderFields: [AnyHashable: Any] {
        canonicalHeaderFields
    }

    /// The combined fields under their canonical names; the storage behind `allHeaderFields`, made on first
    /// use: combining duplicates and canonicalising names (`capitalized`) is costly, and most callers only use
    /// `value(forHTTPHeaderField:)`, which reads the few fields it needs where they are.
    private var canonicalHeaderFields: [String: String] {
        withDerived { derived in
            if let canonical = derived.canonical { return canonical }
            let fields = Self.fields(&derived, wire: wire)
            var canonical: [String: String] = [:]
            for (index, field) in fields.enumerated() where !field.name.isEmpty {
                // The first field of each name decides the key; the later ones are combined into it.
                let isFirst = !fields[..<index].contains { sameName($0.name, field.name) }
                if isFirst {
                    canonical[Self.canonicalName(field.name)] =
                        Self.combinedValue(named: field.name, in: fields, namesAreASCII: namesAreASCII)
                }
            }
            derived.canonical = canonical
            return canonical
        }
    }

    /// The door to what is made on first use: `body` runs under its lock (it only computes).
    private func withDerived<Result>(_ body: (inout Derived) -> Result) -> Result {
        Self.derivedLocks.withLock(for: self) { body(&derived) }
    }

    /// The fields, made from `wire` the first time they are asked for.
    private static func fields(_ derived: inout Derived, wire: HTTPHeaders?) -> [(name: String, value: String)] {
        if let fields = derived.fields { return fields }
        let fields = wire.map { wire in wire.map { (name: $0.name, value: $0.value) } } ?? []
        derived.fields = fields
        return fields
    }

    // MARK: Initialisation

    /// Creates a response from a status code and a dictionary of header fields. Never returns `nil`; the
    /// initialiser is failable for compatibility with FoundationNetworking. (Designated, not delegating to
    /// the wire initialiser below, so that subclasses in other modules inherit it.)
    public init?(url: URL, statusCode: Int, httpVersion: String?, headerFields: [String: String]?) {
        let fields = (headerFields ?? [:])
            .sorted { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }
            .map { (name: $0.key, value: $0.value) }
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.wire = nil
        self.derived = Derived(fields: fields)
        self.namesAreASCII = Self.allASCII(fields)
        super.init(url: url, mimeType: nil,
                   expectedContentLength: Metadata.expectedContentLength(fields, namesAreASCII: namesAreASCII),
                   textEncodingName: nil, suggestedFilename: nil)
    }

    /// Creates a response from a parsed status line and the header fields in the order received; the
    /// transport glue calls this.
    init(url: URL, statusCode: Int, httpVersion: String?, orderedHeaderFields: [(name: String, value: String)]) {
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.wire = nil
        self.derived = Derived(fields: orderedHeaderFields)
        self.namesAreASCII = Self.allASCII(orderedHeaderFields)
        super.init(url: url, mimeType: nil,
                   expectedContentLength: Metadata.expectedContentLength(orderedHeaderFields, namesAreASCII: namesAreASCII),
                   textEncodingName: nil, suggestedFilename: nil)
    }

    /// Creates a response from a parsed head's status line and fields, read in place (`wire`); the transport
    /// glue calls this (`HTTPURLResponse+Wire.swift`).
    init(url: URL, statusCode: Int, httpVersion: String?, wire fields: HTTPHeaders) {
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.wire = fields
        self.derived = Derived()
        self.namesAreASCII = true // field names on the wire are tokens
        super.init(url: url, mimeType: nil,
                   expectedContentLength: Metadata.contentLength(fields.combinedValue(name: "Content-Length")) ?? -1,
                   textEncodingName: nil, suggestedFilename: nil)
    }

    /// Reads a response `encode(with:)` wrote (see `HTTPURLResponse+Coding.swift`): the status line and every
    /// field in its order come back; nil when `coder` is not keyed or the archive is not an HTTP response's.
    /// (Designated, so that subclasses in other modules inherit it.)
    public required init?(coder: NSCoder) {
        guard let archived = ArchivedHTTPHead(coder: coder) else { return nil }
        statusCode = archived.statusCode
        httpVersion = archived.httpVersion
        wire = nil
        derived = Derived(fields: archived.fields)
        namesAreASCII = Self.allASCII(archived.fields)
        super.init(url: archived.url, mimeType: nil,
                   expectedContentLength: Metadata.expectedContentLength(archived.fields, namesAreASCII: namesAreASCII),
                   textEncodingName: nil, suggestedFilename: nil)
    }

    /// Writes the response to a keyed `coder`: the metadata, the status line and every field in order.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        guard coder.allowsKeyedCoding else { return }
        encodeHead(with: coder)
    }

    // MARK: Metadata, read from the fields when asked (HTTPURLResponse+Metadata.swift)

    /// The body's MIME type: the Content-Type value without parameters, lower-cased.
    open override var mimeType: String? {
        Metadata.mimeType(contentType)
    }

    /// The Content-Type `charset` parameter, lower-cased.
    open override var textEncodingName: String? {
        Metadata.textEncodingName(contentType)
    }

    /// Content-Disposition's `filename*` (RFC 8187), else its `filename`, made safe; else the URL's last path
    /// component; else "Unknown".
    open override var suggestedFilename: String? {
        Metadata.filename(contentDisposition: combinedValue(named: "Content-Disposition")) ?? super.suggestedFilename
    }

    /// The Content-Type field, parsed.
    private var contentType: ParameterizedValue? {
        combinedValue(named: "Content-Type").map(ParameterizedValue.init(parsing:))
    }

    // MARK: Lookup

    /// The value of the header field named `field` (case-insensitive), duplicates joined with ", ".
    public func value(forHTTPHeaderField field: String) -> String? {
        combinedValue(named: field)
    }

    /// The values of the fields named `name` (ignoring case) joined with ", " in order, or nil when none is.
    private func combinedValue(named name: String) -> String? {
        if let wire { return name.isEmpty ? nil : wire.combinedValue(name: name) }
        return Self.combinedValue(named: name, in: orderedHeaderFields, namesAreASCII: namesAreASCII)
    }

    /// The value of every field named `name` (ignoring case), in order, each on its own (as `Set-Cookie` and
    /// challenge fields are read); for a wire response without making `orderedHeaderFields`.
    func fieldValues(named name: String) -> [String] {
        if let wire { return wire.values(name: name) }
        return orderedHeaderFields.filter { sameName($0.name, name) }.map(\.value)
    }

    /// Whether `name` and `other` name the same field here.
    private func sameName(_ name: String, _ other: String) -> Bool {
        Self.sameName(name, other, namesAreASCII: namesAreASCII)
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

    /// The values of the fields of `fields` named `name` joined with ", " in order, nil when none is (nor
    /// for an empty name). Names are equal when their lower-cased forms are; `namesAreASCII` says every name
    /// in `fields` is ASCII (see `allASCII`). A response has a handful of fields and a caller asks for a few:
    /// a scan is cheaper than the index of every name it would otherwise build for each response.
    static func combinedValue(named name: String, in fields: [(name: String, value: String)],
                              namesAreASCII: Bool) -> String? {
        guard !name.isEmpty else { return nil }
        let comparesASCII = namesAreASCII && isASCII(name)
        let lowercasedName = comparesASCII ? "" : name.lowercased()
        var combined: String?
        for field in fields where !field.name.isEmpty {
            let same = comparesASCII ? field.name.isEqualIgnoringASCIICase(name) : field.name.lowercased() == lowercasedName
            if same { combined = combined.map { $0 + ", " + field.value } ?? field.value }
        }
        return combined
    }

    /// Whether every name in `fields` is ASCII.
    static func allASCII(_ fields: [(name: String, value: String)]) -> Bool {
        fields.allSatisfy { isASCII($0.name) }
    }

    /// Whether `text` is ASCII (read in place when the string is contiguous, as native strings are).
    private static func isASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// Whether `name` (from fields whose names are all ASCII when `namesAreASCII`) and `other` are the same
    /// field name: equal once lower-cased; between ASCII names, equal ignoring ASCII case.
    private static func sameName(_ name: String, _ other: String, namesAreASCII: Bool) -> Bool {
        if namesAreASCII, isASCII(other) { return name.isEqualIgnoringASCIICase(other) }
        return name.lowercased() == other.lowercased()
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
