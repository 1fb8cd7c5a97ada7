// MARK: - URI: resolving references
//
// RFC 3986 §5.2: a `Location` field may be a relative reference; it is resolved against the URI of the
// request that received it. The reference is split into its five parts by §B's rules (the parts are then
// checked by parsing the result), and the path is merged and its dot segments removed (§5.2.3, §5.2.4).

extension URI {
    /// The absolute URI `reference` names when read relative to this one (RFC 3986 §5.2.2). A
    /// reference with a scheme is parsed as an absolute URI.
    public func resolving(_ reference: String) throws(URIError) -> URI {
        let parts = ReferenceParts(reference)
        if parts.scheme != nil { return try URI(reference) }
        var text = scheme + ":"
        if let authority = parts.authority {
            text += "//" + authority + Self.removingDotSegments(parts.path)
            if let query = parts.query { text += "?" + query }
        } else {
            text += "//" + (userInfo.map { $0 + "@" } ?? "") + self.authority
            if parts.path.isEmpty {
                text += path
                if let query = parts.query.map(String.init) ?? self.query { text += "?" + query }
            } else {
                let merged = parts.path.hasPrefix("/") ? parts.path : merge(parts.path)
                text += Self.removingDotSegments(merged)
                if let query = parts.query { text += "?" + query }
            }
        }
        if let fragment = parts.fragment.map(String.init) ?? (parts.isEmpty ? self.fragment : nil) { text += "#" + fragment }
        return try URI(text)
    }

    /// §5.2.3: the reference's path after the base path's last "/" (or after "/" when the base has an
    /// authority and an empty path).
    private func merge(_ relative: String) -> String {
        if path.isEmpty { return "/" + relative }
        guard let slash = path.lastIndex(of: "/") else { return relative }
        return String(path[...slash]) + relative
    }

    /// §5.2.4: the path without "." and ".." segments.
    static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        let joined = output.joined(separator: "/")
        return path.hasPrefix("/") && !joined.hasPrefix("/") ? "/" + joined : joined
    }
}

// MARK: - ReferenceParts

/// A URI reference split by RFC 3986 Appendix B: scheme, authority, path, query, fragment.
struct ReferenceParts {
    var scheme: Substring?
    var authority: Substring?
    var path: String
    var query: Substring?
    var fragment: Substring?

    /// True for the empty reference (the base itself, without its fragment kept only then).
    var isEmpty: Bool { scheme == nil && authority == nil && path.isEmpty && query == nil }

    init(_ text: String) {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/"), !rest[..<colon].isEmpty {
            scheme = rest[..<colon]
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = rest[..<end]
            rest = rest[end...]
        }
        path = String(rest)
    }
}
