// CacheControl.swift
//
// The Cache-Control directives (RFC 9111 §5.2) a private cache acts on, parsed from a request or a
// response. The field is a comma-separated list of `name[=value]` members; a value may be a token or a
// quoted string, and a comma inside quotes does not separate members. Names are case-insensitive.
//
// Reading rules (RFC 9111 §4.2.1, §1.2.2): the first occurrence of a directive counts; delta-seconds larger
// than 2^31 are 2^31; an invalid `max-age` (not a non-negative integer) makes the response stale, read as
// `max-age=0`; an invalid `min-fresh` or `max-stale` value is ignored; `max-stale` without a value accepts
// any staleness. The qualified forms `no-cache="field"` and `private="field"` are read as unqualified,
// which is what a private cache may do. `s-maxage` only matters through its presence (it lets a response
// to an authenticated request be stored, §3.5), `proxy-revalidate` not at all: this is not a shared cache.
// A request without Cache-Control but with `Pragma: no-cache` is read as `Cache-Control: no-cache`
// (RFC 7234 §5.4; RFC 9111 deprecates Pragma but origin-facing clients still send it).

import Foundation

/// The Cache-Control directives of one message.
struct CacheControl: Equatable, Sendable {
    // MARK: Directives

    /// `max-age`: how old, in seconds, a response may be (response: its freshness lifetime; request: the
    /// oldest response the client accepts).
    var maxAge: Int?
    /// Request `max-stale`: how many seconds past its lifetime a response may be; `Int.max` for any.
    var maxStale: Int?
    /// Request `min-fresh`: how many seconds a response must stay fresh for.
    var minFresh: Int?
    /// Response `s-maxage` is present.
    var hasSharedMaxAge = false
    /// `no-cache`: a stored response must be validated before it is used.
    var noCache = false
    /// `no-store`: nothing of the exchange may be stored.
    var noStore = false
    /// Request `only-if-cached`: answer from the cache or fail, never from the network.
    var onlyIfCached = false
    /// Response `must-revalidate`: once stale, never used without validation (whatever `max-stale` says).
    var mustRevalidate = false
    /// Response `public`.
    var isPublic = false
    /// Response `private` (storable by this private cache).
    var isPrivate = false

    /// The largest delta-seconds value (RFC 9111 §1.2.2).
    static let maximumDeltaSeconds = 2_147_483_648

    // MARK: Parsing

    /// The directives in a Cache-Control field value (several field lines joined with commas).
    init(fieldValue: String?) {
        // No field (the usual request): no directive, and nothing to split.
        guard let fieldValue, !fieldValue.isEmpty else { return }
        for member in Self.members(of: fieldValue) {
            apply(name: member.name.lowercased(), value: member.value)
        }
    }

    /// The request's directives, with `Pragma: no-cache` read as `no-cache` when Cache-Control is absent.
    init(request: URLRequest) {
        let field = request.value(forHTTPHeaderField: "Cache-Control")
        self.init(fieldValue: field)
        if field == nil, let pragma = request.value(forHTTPHeaderField: "Pragma") {
            noCache = Self.members(of: pragma).contains { $0.name.isEqualIgnoringASCIICase("no-cache") }
        }
    }

    /// The response's directives.
    init(response: HTTPURLResponse) {
        self.init(fieldValue: response.value(forHTTPHeaderField: "Cache-Control"))
    }

    /// Records one directive, unless an earlier occurrence of it already counted.
    private mutating func apply(name: String, value: String?) {
        switch name {
        case "max-age" where maxAge == nil:
            maxAge = Self.deltaSeconds(value) ?? 0
        case "max-stale" where maxStale == nil:
            maxStale = value == nil ? Int.max : Self.deltaSeconds(value)
        case "min-fresh" where minFresh == nil:
            minFresh = Self.deltaSeconds(value)
        case "s-maxage":
            hasSharedMaxAge = true
        case "no-cache":
            noCache = true
        case "no-store":
            noStore = true
        case "only-if-cached":
            onlyIfCached = true
        case "must-revalidate":
            mustRevalidate = true
        case "public":
            isPublic = true
        case "private":
            isPrivate = true
        default:
            break
        }
    }

    /// `value` as delta-seconds (only ASCII digits), capped at 2^31; nil when absent or invalid.
    static func deltaSeconds(_ value: String?) -> Int? {
        guard let value, !value.isEmpty,
              value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        var seconds = 0
        for digit in value.utf8 {
            seconds = min(seconds * 10 + Int(digit - UInt8(ascii: "0")), maximumDeltaSeconds)
        }
        return seconds
    }

    // MARK: List splitting

    /// The `name[=value]` members of a comma-separated list, quoted values unquoted; empty members
    /// (`a,,b`) left out.
    static func members(of field: String) -> [(name: String, value: String?)] {
        splitOutsideQuotes(field).compactMap { member in
            let trimmed = member.trimmingHTTPWhitespace()
            guard !trimmed.isEmpty else { return nil }
            guard let equals = trimmed.firstIndex(of: "=") else {
                return (trimmed, nil)
            }
            let name = trimmed[..<equals].trimmingHTTPWhitespace()
            let value = trimmed[trimmed.index(after: equals)...].trimmingHTTPWhitespace()
            return (name, unquoted(value))
        }
    }

    /// `field` cut at every comma that is not inside a quoted string.
    private static func splitOutsideQuotes(_ field: String) -> [Substring] {
        var pieces: [Substring] = []
        var start = field.startIndex
        var isQuoted = false
        var isEscaped = false
        for index in field.indices {
            let character = field[index]
            if isEscaped {
                isEscaped = false
            } else if isQuoted && character == "\\" {
                isEscaped = true
            } else if character == "\"" {
                isQuoted.toggle()
            } else if character == "," && !isQuoted {
                pieces.append(field[start..<index])
                start = field.index(after: index)
            }
        }
        pieces.append(field[start...])
        return pieces
    }

    /// A quoted string without its quotes and quoted-pair backslashes; any other value as it is.
    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        var result = ""
        var isEscaped = false
        for character in value.dropFirst().dropLast() {
            if character == "\\" && !isEscaped {
                isEscaped = true
                continue
            }
            result.append(character)
            isEscaped = false
        }
        return result
    }
}
