// URLResponse.swift
//
// The protocol-independent response metadata, source-compatible with FoundationNetworking's
// `URLResponse`. Instances are immutable: every property is assigned once in an initialiser, which is why
// `copy(with:)` returns the receiver and why the class can be `@unchecked Sendable` without a lock.

import Foundation

/// The metadata of a URL load response, independent of protocol and URL scheme (FoundationNetworking's
/// `URLResponse`). It does not contain the body.
///
/// `@unchecked Sendable`: every stored property is written only during initialisation and never again,
/// so instances are safe to share between threads without a lock.
open class URLResponse: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable { // immutable after init
    // MARK: Properties
    //
    // Each is written once, by an initialiser, so no access can overlap another: `@exclusivity(unchecked)`
    // spares the runtime's check, about 80 instructions per access and five per small request.

    /// The URL of the receiver.
    @exclusivity(unchecked) open private(set) var url: URL?

    /// The MIME type of the response body as reported by the origin, if known.
    @exclusivity(unchecked) open private(set) var mimeType: String?

    /// The expected length of the body in bytes, or -1 when it cannot be determined. Advisory only.
    @exclusivity(unchecked) open private(set) var expectedContentLength: Int64

    /// The name of the body's text encoding as reported by the origin (for example `"utf-8"`), if any.
    @exclusivity(unchecked) open private(set) var textEncodingName: String?

    /// A file name to use if the body were saved to disk; never empty.
    open var suggestedFilename: String? {
        namedFile ?? url.map(Self.suggestedFilename(fromLastPathComponentOf:))
    }

    /// The file name the response gave itself (an HTTP response's Content-Disposition, an archive's); nil: the
    /// URL's last path component, found when somebody asks (most never do, and a URL's path is costly to split).
    private let namedFile: String?

    // MARK: Initialisation

    /// Creates a response with the given metadata; the suggested file name is the URL's last path
    /// component, or `"Unknown"` when the URL has none.
    public init(url: URL, mimeType: String?, expectedContentLength length: Int, textEncodingName name: String?) {
        self.url = url
        self.mimeType = mimeType
        self.expectedContentLength = Int64(length)
        self.textEncodingName = name
        self.namedFile = nil
    }

    /// Creates a response whose every property is given; subclasses that derive their metadata use this.
    /// `suggestedFilename` nil: the URL's last path component.
    init(
        url: URL,
        mimeType: String?,
        expectedContentLength: Int64,
        textEncodingName: String?,
        suggestedFilename: String?
    ) {
        self.url = url
        self.mimeType = mimeType
        self.expectedContentLength = expectedContentLength
        self.textEncodingName = textEncodingName
        self.namedFile = suggestedFilename
    }

    /// Reads a response `encode(with:)` wrote (see `URLResponse+Coding.swift`); nil when `coder` is not
    /// keyed or the archive is not a response's.
    /// (Designated, so that subclasses in other modules inherit it.)
    public required init?(coder: NSCoder) {
        guard let archived = ArchivedResponse(coder: coder) else { return nil }
        url = archived.url
        mimeType = archived.mimeType
        expectedContentLength = archived.expectedContentLength
        textEncodingName = archived.textEncodingName
        namedFile = archived.suggestedFilename
    }

    /// Writes the response to a keyed `coder` (a plain coder gets nothing: responses are archived keyed
    /// only, as in FoundationNetworking).
    open func encode(with coder: NSCoder) {
        guard coder.allowsKeyedCoding else { return }
        encodeMetadata(with: coder)
    }

    /// The last path component of `url` when it is usable as a file name (not empty, `/`, `.` or `..`),
    /// otherwise `"Unknown"`.
    static func suggestedFilename(fromLastPathComponentOf url: URL) -> String {
        let component = url.lastPathComponent
        return ["", "/", ".", ".."].contains(component) ? "Unknown" : component
    }

    // MARK: NSCopying

    /// Returns the receiver: responses are immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Returns the receiver: responses are immutable.
    open override func copy() -> Any {
        copy(with: nil)
    }

    // MARK: Equality

    /// Whether `object` is a response with the same URL, expected length, MIME type and text encoding
    /// (FoundationNetworking's definition; subclasses add nothing to it).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? URLResponse else { return false }
        return self === other
            || (url == other.url
                && expectedContentLength == other.expectedContentLength
                && mimeType == other.mimeType
                && textEncodingName == other.textEncodingName)
    }

    /// A hash of the properties `isEqual(_:)` compares.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(url)
        hasher.combine(expectedContentLength)
        hasher.combine(mimeType)
        hasher.combine(textEncodingName)
        return hasher.finalize()
    }
}
