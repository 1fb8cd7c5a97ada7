import Foundation

// MARK: - What the transport needs of a request's URL
//
// A request reaches the transport as a connection key (scheme, host, port) and a request target (path and
// query). Foundation's accessors (`scheme`, `host(percentEncoded:)`, `port`, `path(percentEncoded:)`,
// `query(percentEncoded:)`) each parse the URL's string again and allocate what they return: about 3,500
// instructions of a small request's 90,000 went there. Nearly every request URL has the plain form
//
//     scheme "://" host [":" port] [path] ["?" query] ["#" fragment]
//
// with an ASCII name or IPv4 address for a host, and `URLParts(plain:)` reads such a URL in one pass over its
// string. Anything else — a base URL, user info, an IPv6 literal, a percent-encoded or non-ASCII host, an
// empty or overlong port — is left to Foundation's accessors (`URLParts(accessorsOf:)`), which stay the
// reference: a test compares both readings over a table of URLs.

/// The scheme, host, port and request target of a URL.
struct URLParts: Equatable {
    /// The scheme, lowercased; nil when the URL has none.
    var scheme: String?
    /// The host, lowercased, without IPv6 brackets; nil when the URL has none.
    var host: String?
    /// The port the URL names, if it names one.
    var port: Int?
    /// The path as written ("/" when it is empty), then "?" and the query when the URL has one.
    var target: String

    /// The parts of `url`: read in one pass when it has the plain form, else through Foundation's accessors.
    init(_ url: URL) {
        self = URLParts(plain: url) ?? URLParts(accessorsOf: url)
    }

    /// The parts of `url` read through Foundation's accessors (of its absolute URL when it has a base).
    init(accessorsOf url: URL) {
        let absolute = url.baseURL == nil ? url : url.absoluteURL
        scheme = absolute.scheme?.lowercased()
        var host = absolute.host(percentEncoded: false)
        if let bracketed = host, bracketed.hasPrefix("["), bracketed.hasSuffix("]") {
            host = String(bracketed.dropFirst().dropLast())
        }
        self.host = host?.lowercased()
        port = absolute.port
        let path = absolute.path(percentEncoded: true)
        target = path.isEmpty ? "/" : path
        if let query = absolute.query(percentEncoded: true) { target += "?" + query }
    }

    /// The parts of `url` read in one pass over its string, or nil when it does not have the plain form.
    init?(plain url: URL) {
        guard url.baseURL == nil else { return nil }
        var string = url.relativeString
        let parts = string.withUTF8 { utf8 in utf8.baseAddress.flatMap { Self.read($0, count: utf8.count) } }
        guard let parts else { return nil }
        self = parts
    }

    /// Reads the `count` bytes at `bytes` as `scheme "://" host [":" port] [path] ["?" query] ["#" fragment]`;
    /// nil for anything else. (A pointer, not a buffer: a buffer's subscript is a coroutine that a debug build
    /// calls, allocating its frame, for every byte.)
    private static func read(_ bytes: UnsafePointer<UInt8>, count: Int) -> URLParts? {
        var index = 0
        // scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then "://"
        while index < count, isSchemeByte(bytes[index], first: index == 0) { index += 1 }
        let schemeEnd = index
        guard schemeEnd > 0, count - index >= 3, bytes[index] == UInt8(ascii: ":"),
              bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") else { return nil }
        index += 3
        // host: a name or an IPv4 address of unreserved characters (no user info, IPv6 literal or escape)
        let hostStart = index
        while index < count, !isAuthorityEnd(bytes[index]), bytes[index] != UInt8(ascii: ":") {
            guard isPlainHostByte(bytes[index]) else { return nil }
            index += 1
        }
        let hostEnd = index
        guard hostEnd > hostStart else { return nil }
        // port: 1 to 5 digits after ":"
        var port: Int?
        if index < count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            var value = 0
            while index < count, let digit = decimalDigit(bytes[index]), index - portStart < 5 {
                value = value * 10 + digit
                index += 1
            }
            guard index > portStart, index == count || isAuthorityEnd(bytes[index]) else { return nil }
            port = value
        }
        // path up to "?" or "#", query up to "#"
        let pathStart = index
        while index < count, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") { index += 1 }
        let pathEnd = index
        var queryEnd = index
        if index < count, bytes[index] == UInt8(ascii: "?") {
            while queryEnd < count, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
        }
        let path = UnsafeBufferPointer(start: bytes + pathStart, count: queryEnd - pathStart)
        let target = pathEnd > pathStart
            ? String(decoding: path, as: UTF8.self) : "/" + String(decoding: path, as: UTF8.self)
        return URLParts(scheme: scheme(bytes, 0..<schemeEnd), host: lowercased(bytes, hostStart..<hostEnd),
                        port: port, target: target)
    }

    /// The scheme in `bytes[range]`, lowercased; the transport's own schemes are named without making a string.
    private static func scheme(_ bytes: UnsafePointer<UInt8>, _ range: Range<Int>) -> String {
        /// Whether the scheme is `lowercase`, ignoring case (`lowercase` is ASCII letters).
        func `is`(_ lowercase: StaticString) -> Bool {
            guard lowercase.utf8CodeUnitCount == range.count else { return false }
            for offset in 0..<range.count where bytes[range.lowerBound + offset] | 0x20 != lowercase.utf8Start[offset] {
                return false
            }
            return true
        }
        if `is`("http") { return "http" }
        if `is`("https") { return "https" }
        if `is`("ws") { return "ws" }
        if `is`("wss") { return "wss" }
        return lowercased(bytes, range)
    }

    private init(scheme: String, host: String, port: Int?, target: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.target = target
    }

    // MARK: Bytes

    private static func isSchemeByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): !first
        default: false
        }
    }

    /// The unreserved characters (RFC 3986): a host made of them means the same decoded or not.
    private static func isPlainHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"): true
        default: false
        }
    }

    /// Whether `byte` ends the authority (the host and port).
    private static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    private static func decimalDigit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte &- UInt8(ascii: "0")) : nil
    }

    /// `bytes[range]`, ASCII, lowercased.
    private static func lowercased(_ bytes: UnsafePointer<UInt8>, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { buffer in
            for index in range {
                let byte = bytes[index]
                let isUpper = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                buffer[index - range.lowerBound] = isUpper ? byte | 0x20 : byte
            }
            return range.count
        }
    }
}
