// MARK: - URI
//
// RFC 3986 §3 read once, left to right, without Foundation: `scheme ":" [ "//" authority ] path
// [ "?" query ] [ "#" fragment ]`. The scheme and host are compared case-insensitively, so they are kept
// lowercased; everything else is kept as written (percent-encodings are checked, not decoded). A character
// outside the generic syntax (a space, a control character, a non-ASCII byte, a stray "%") is an error,
// not something to repair: what the client sends is exactly what the caller wrote.

/// An absolute URI (RFC 3986 §4.3) parsed by its generic syntax: what the client needs to know where to
/// connect and what to ask for.
public struct URI: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lowercased (`http`, `https`).
    public let scheme: String
    /// The user information before "@" in the authority, as written; nil when absent.
    public let userInfo: String?
    /// The host, lowercased: a registered name, an IPv4 address, or an IP literal without its brackets.
    public let host: String
    /// The port written in the authority; nil when absent or empty.
    public let port: Int?
    /// The path as written (may be empty).
    public let path: String
    /// The query after "?", as written; nil when there is no "?".
    public let query: String?
    /// The fragment after "#", as written; nil when there is no "#".
    public let fragment: String?

    /// Parses `text` as an absolute URI with an authority (`scheme://host...`).
    public init(_ text: String) throws(URIError) {
        var rest = Substring(text)
        guard let colon = rest.firstIndex(of: ":") else { throw URIError("no scheme in \"\(text)\"") }
        let scheme = rest[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { throw URIError("invalid scheme in \"\(text)\"") }
        rest = rest[rest.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw URIError("no authority (\"//host\") in \"\(text)\"") }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let (userInfo, host, port) = try Self.authority(rest[..<authorityEnd], in: text)
        rest = rest[authorityEnd...]
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        try Self.check(rest, allowing: Self.pathCharacters, part: "path", in: text)
        try query.map { q throws(URIError) in try Self.check(q, allowing: Self.queryCharacters, part: "query", in: text) }
        try fragment.map { f throws(URIError) in
            try Self.check(f, allowing: Self.queryCharacters, part: "fragment", in: text)
        }
        self.scheme = scheme.lowercased()
        self.userInfo = userInfo
        self.host = host
        self.port = port
        self.path = String(rest)
        self.query = query.map(String.init)
        self.fragment = fragment.map(String.init)
    }

    /// Creates a URI from its parts (already valid; used when resolving references).
    init(scheme: String, userInfo: String?, host: String, port: Int?, path: String, query: String?,
         fragment: String?) {
        self.scheme = scheme
        self.userInfo = userInfo
        self.host = host
        self.port = port
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    // MARK: Derived

    /// The host as it is written in an authority: an IP literal in brackets.
    public var hostForAuthority: String { host.contains(":") ? "[\(host)]" : host }

    /// The authority without user information: host, and ":port" when a port was written.
    public var authority: String { hostForAuthority + (port.map { ":\($0)" } ?? "") }

    /// The origin-form request target (RFC 9112 §3.2.1): the path ("/" when empty) and the query.
    public var requestTarget: String { (path.isEmpty ? "/" : path) + (query.map { "?" + $0 } ?? "") }

    /// The URI as text (scheme and host lowercased, the rest as written).
    public var description: String {
        var text = scheme + "://"
        if let userInfo { text += userInfo + "@" }
        text += authority + path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    // MARK: Authority

    private static func authority(_ text: Substring, in whole: String)
        throws(URIError) -> (userInfo: String?, host: String, port: Int?) {
        var rest = text
        var userInfo: String?
        if let at = rest.lastIndex(of: "@") {
            let info = rest[..<at]
            try check(info, allowing: userInfoCharacters, part: "user information", in: whole)
            userInfo = String(info)
            rest = rest[rest.index(after: at)...]
        }
        var host: Substring
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { throw URIError("unclosed \"[\" in \"\(whole)\"") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.contains(":")
            else { throw URIError("invalid IP literal in \"\(whole)\"") }
            rest = rest[rest.index(after: close)...]
            guard rest.isEmpty || rest.first == ":" else { throw URIError("text after \"]\" in \"\(whole)\"") }
        } else {
            let colon = rest.firstIndex(of: ":") ?? rest.endIndex
            host = rest[..<colon]
            try check(host, allowing: hostCharacters, part: "host", in: whole)
            rest = rest[colon...]
        }
        guard !host.isEmpty else { throw URIError("no host in \"\(whole)\"") }
        var port: Int?
        if rest.first == ":" {
            let digits = rest.dropFirst()
            if !digits.isEmpty {
                guard digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits),
                      value <= 65535
                else { throw URIError("invalid port \"\(digits)\" in \"\(whole)\"") }
                port = value
            }
        }
        return (userInfo, host.lowercased(), port)
    }

    // MARK: Character classes (RFC 3986 §2, §3.2–§3.5)

    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    static let subDelimiters = Set("!$&'()*+,;=")
    static let hostCharacters = unreserved.union(subDelimiters)
    static let userInfoCharacters = hostCharacters.union(":")
    static let pathCharacters = userInfoCharacters.union("@/")
    static let queryCharacters = pathCharacters.union("?")

    /// Every character of `text` is in `allowed` or starts a "%" and two hex digits.
    static func check(_ text: Substring, allowing allowed: Set<Character>, part: String, in whole: String)
        throws(URIError) {
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "%" {
                let digits = text[text.index(after: index)...].prefix(2)
                guard digits.count == 2, digits.allSatisfy(\.isHexDigit) else {
                    throw URIError("a \"%\" without two hex digits in the \(part) of \"\(whole)\"")
                }
                index = text.index(index, offsetBy: 3)
                continue
            }
            guard allowed.contains(character) else {
                throw URIError("character \(character.unicodeScalars.map { "U+\(String($0.value, radix: 16, uppercase: true))" }.joined()) not allowed in the \(part) of \"\(whole)\"")
            }
            index = text.index(after: index)
        }
    }
}

// MARK: - URIError

/// Why text is not a URI the client can use; `reason` is for people.
public struct URIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and where.
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
}
