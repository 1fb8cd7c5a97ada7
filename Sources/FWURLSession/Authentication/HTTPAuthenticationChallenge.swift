// HTTPAuthenticationChallenge.swift
//
// The challenges of WWW-Authenticate and Proxy-Authenticate fields (RFC 9110 §11.2-11.3, §11.6.1,
// §11.7.1), parsed leniently:
//
//     challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//     auth-param = token BWS "=" BWS ( token / quoted-string )
//     token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//
// A field is a comma-separated list whose elements are either a new challenge (a token not followed by
// "=") or a parameter of the challenge before it (`token = value`); several fields concatenate their
// lists. A token68 is recognised only right after the scheme and only when nothing but a comma or the end
// follows it. Parameter names compare without case (stored lower-cased); the first occurrence of a
// parameter wins; quoted strings lose their quotes and backslash escapes. Junk up to the next comma is
// skipped. A pure function.

import Foundation

// MARK: - HTTPAuthenticationChallenge

/// One authentication challenge: a scheme with a token68 or parameters.
struct HTTPAuthenticationChallenge: Hashable, Sendable {
    /// The scheme as received ("Basic", "Digest", ...).
    var scheme: String
    /// The token68 that followed the scheme, if any.
    var token68: String?
    /// The parameters, names lower-cased, values unquoted.
    var parameters: [String: String] = [:]

    /// The realm parameter.
    var realm: String? { parameters["realm"] }

    /// True when the scheme is `name`, compared without case.
    func hasScheme(_ name: String) -> Bool {
        scheme.lowercased() == name.lowercased()
    }

    /// The challenges of the given WWW-Authenticate (or Proxy-Authenticate) field values, in order.
    static func challenges(in fields: [String]) -> [HTTPAuthenticationChallenge] {
        var challenges: [HTTPAuthenticationChallenge] = []
        for field in fields {
            var scanner = ChallengeScanner(Array(field.utf8))
            scanner.parse(into: &challenges)
        }
        return challenges
    }
}

// MARK: - ChallengeScanner

/// A cursor over one field value.
private struct ChallengeScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Appends the field's challenges (and parameters of the last challenge before it) to `challenges`.
    mutating func parse(into challenges: inout [HTTPAuthenticationChallenge]) {
        while true {
            skip { $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: ",") }
            guard position < bytes.count else { return }
            guard let token = token() else {
                skip { $0 != UInt8(ascii: ",") }
                continue
            }
            let afterToken = position
            skip(isWhitespace)
            if peek == UInt8(ascii: "="), !challenges.isEmpty {
                position += 1
                skip(isWhitespace)
                let value = quotedString() ?? self.token() ?? ""
                let name = token.lowercased()
                if challenges[challenges.count - 1].parameters[name] == nil {
                    challenges[challenges.count - 1].parameters[name] = value
                }
                continue
            }
            if peek == UInt8(ascii: "=") {
                skip { $0 != UInt8(ascii: ",") }
                continue
            }
            position = afterToken
            skip(isWhitespace)
            challenges.append(HTTPAuthenticationChallenge(scheme: token, token68: standaloneToken68()))
        }
    }

    // MARK: Productions

    /// A token, or nil (position unchanged) when none starts here.
    private mutating func token() -> String? {
        let start = position
        skip(isTokenCharacter)
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    /// A quoted string without its quotes and escapes, or nil when none starts here. An unterminated
    /// string runs to the end of the field.
    private mutating func quotedString() -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        position += 1
        var value: [UInt8] = []
        while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
            if bytes[position] == UInt8(ascii: "\\"), position + 1 < bytes.count { position += 1 }
            value.append(bytes[position])
            position += 1
        }
        if position < bytes.count { position += 1 }
        return String(decoding: value, as: UTF8.self)
    }

    /// A token68 followed only by whitespace and then a comma or the end; nil (position unchanged) otherwise.
    private mutating func standaloneToken68() -> String? {
        let start = position
        skip(isToken68Character)
        guard position > start else { return nil }
        skip { $0 == UInt8(ascii: "=") }
        let end = position
        skip(isWhitespace)
        guard position == bytes.count || bytes[position] == UInt8(ascii: ",") else {
            position = start
            return nil
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    // MARK: Bytes

    private var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skip(_ predicate: (UInt8) -> Bool) {
        while position < bytes.count, predicate(bytes[position]) { position += 1 }
    }

    private func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }

    private func isToken68Character(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || Array("-._~+/".utf8).contains(byte)
    }

    private func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
