// HTTPDigestAuthentication.swift
//
// The Digest scheme (RFC 7616), computed with FWTLS's `Digest`:
// - Algorithms MD5, SHA-256 and SHA-512-256, each with its "-sess" variant (names compare without
//   case; a challenge without `algorithm` means MD5).
// - qop "auth" only. "auth-int" (a digest of the body) is not supported: a challenge that offers only
//   auth-int cannot be answered. A challenge without qop gets the RFC 2069 answer (no nc, cnonce, qop).
// - userhash=true sends H(user ":" realm) as the username; a non-ASCII user name otherwise goes as
//   `username*=UTF-8''percent-encoded` (§3.4.4). User names and passwords are hashed as UTF-8.
// - The opaque value is echoed; the nonce count is eight hex digits.
//
//     A1       = user ":" realm ":" password                 (-sess: H(A1) ":" nonce ":" cnonce)
//     A2       = method ":" uri
//     response = H( H(A1) ":" nonce ":" nc ":" cnonce ":" qop ":" H(A2) )    (no qop: H(H(A1):nonce:H(A2)))
//
// Pure functions; the nonce count and the nonce's renewal are `HTTPDigestState`'s.

import Foundation
import FWTLS

// MARK: - HTTPDigestChallenge

/// The parameters of a Digest challenge this client can answer.
struct HTTPDigestChallenge: Equatable, Sendable {
    /// A Digest algorithm.
    struct Algorithm: Equatable, Sendable {
        /// The hash function.
        var digest: Digest
        /// True for a "-sess" variant.
        var isSession: Bool

        /// The algorithm as RFC 7616 names it, such as "SHA-256-sess".
        var name: String { digest.name + (isSession ? "-sess" : "") }

        /// The algorithm a challenge names (without case), nil when it is not supported.
        init?(name: String) {
            var base = name.uppercased()
            isSession = base.hasSuffix("-SESS")
            if isSession { base.removeLast(5) }
            switch base {
            case "MD5": digest = .md5
            case "SHA-256": digest = .sha256
            case "SHA-512-256": digest = .sha512_256
            default: return nil
            }
        }
    }

    var realm: String
    var nonce: String
    var opaque: String?
    var algorithm: Algorithm
    /// True when the challenge named its algorithm (the answer then names it too).
    var namesAlgorithm: Bool
    /// True when the challenge offered qop "auth"; false for an RFC 2069 challenge without qop.
    var usesQop: Bool
    var userhash: Bool
    /// True when the challenge says the previous nonce was stale (the credentials were right).
    var stale: Bool

    /// The Digest parameters of `challenge`; nil when it is not a Digest challenge, has no nonce, names an
    /// unsupported algorithm, or offers qop values without "auth".
    init?(_ challenge: HTTPAuthenticationChallenge) {
        let parameters = challenge.parameters
        guard challenge.hasScheme("Digest"), let nonce = parameters["nonce"],
              let algorithm = Algorithm(name: parameters["algorithm"] ?? "MD5")
        else { return nil }
        let qops = parameters["qop"].map { $0.split(separator: ",").map { SetCookie.trim($0).lowercased() } }
        guard qops?.contains("auth") ?? true else { return nil }
        self.realm = parameters["realm"] ?? ""
        self.nonce = nonce
        self.opaque = parameters["opaque"]
        self.algorithm = algorithm
        self.namesAlgorithm = parameters["algorithm"] != nil
        self.usesQop = qops != nil
        self.userhash = parameters["userhash"]?.lowercased() == "true"
        self.stale = parameters["stale"]?.lowercased() == "true"
    }
}

// MARK: - Answering

extension HTTPDigestChallenge {
    /// The Authorization (or Proxy-Authorization) value answering this challenge for a request with
    /// `method` to `uri` (the request target, such as "/dir/index.html?x=1"), as the `nonceCount`th use of
    /// the nonce, with client nonce `cnonce`.
    func authorization(method: String, uri: String, user: String, password: String, nonceCount: UInt32,
                       cnonce: String) -> String {
        let hash: (String) -> String = { algorithm.digest.hexHash($0) }
        var secret = hash("\(user):\(realm):\(password)")
        if algorithm.isSession { secret = hash("\(secret):\(nonce):\(cnonce)") }
        let requestHash = hash("\(method):\(uri)")
        let count = String(nonceCount, radix: 16).leftPadded(to: 8)
        let response = usesQop
            ? hash("\(secret):\(nonce):\(count):\(cnonce):auth:\(requestHash)")
            : hash("\(secret):\(nonce):\(requestHash)")
        var fields: [String] = []
        if userhash {
            fields.append("username=\(Self.quoted(hash("\(user):\(realm)")))")
        } else if user.unicodeScalars.allSatisfy(\.isASCII) {
            fields.append("username=\(Self.quoted(user))")
        } else {
            fields.append("username*=UTF-8''\(Self.percentEncoded(user))")
        }
        fields.append("realm=\(Self.quoted(realm))")
        fields.append("uri=\(Self.quoted(uri))")
        if namesAlgorithm { fields.append("algorithm=\(algorithm.name)") }
        fields.append("nonce=\(Self.quoted(nonce))")
        if usesQop { fields += ["nc=\(count)", "cnonce=\(Self.quoted(cnonce))", "qop=auth"] }
        fields.append("response=\(Self.quoted(response))")
        if let opaque { fields.append("opaque=\(Self.quoted(opaque))") }
        if userhash { fields.append("userhash=true") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// `text` as a quoted-string: in double quotes, with `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// RFC 8187's value-chars: attr-char bytes as they are, every other UTF-8 byte as %XX.
    static func percentEncoded(_ text: String) -> String {
        let attributeCharacters = Set("!#$&+-.^_`|~".utf8)
        return text.utf8.map { byte in
            let isAlphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte)
            return isAlphanumeric || attributeCharacters.contains(byte)
                ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }.joined()
    }
}

private extension String {
    /// The string with leading zeros up to `length` characters.
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
