// HTTPAuthenticationState.swift
//
// What a session remembers about one protection space after answering its challenge, so that later
// requests to it can carry credentials and a repeated challenge can be judged. A small state machine:
//
//   basic                    — every answer is the same Basic value.
//   digest(challenge, count) — the current nonce and how many requests used it: each answer takes the
//                              next nonce count (1, 2, ...) and a fresh client nonce.
//
// Input: a new challenge for the space (another 401 or 407).
//   - A Digest challenge with stale=true: the server only refused the old nonce; the state takes the new
//     nonce (count back to 0) and the request is retried with the same credential without asking the
//     user again (RFC 7616 §3.3).
//   - Another answerable challenge: the credential was refused (or the server changed scheme); the state
//     takes the new challenge and the credential must be asked for again.
//   - A challenge that cannot be answered leaves the state as it was.
// The client nonce comes from a generator the caller passes (random by default, fixed in tests).

import Foundation

// MARK: - HTTPAuthenticationState

/// The answerable challenge of one protection space and, for Digest, its nonce count.
struct HTTPAuthenticationState: Sendable, Equatable {
    /// The scheme and what it needs.
    enum Scheme: Sendable, Equatable {
        /// Basic: nothing changes between answers.
        case basic
        /// Digest: the challenge's parameters and how many answers used its nonce.
        case digest(HTTPDigestChallenge, nonceCount: UInt32)
    }

    /// What a repeated challenge means.
    enum Outcome: Sendable, Equatable {
        /// The nonce was stale: answer again with the same credential.
        case retryWithSameCredential
        /// The credential was refused: ask for a credential again.
        case askForCredential
        /// The new challenge cannot be answered (an unsupported scheme or algorithm); the state is unchanged.
        case cannotAnswer
    }

    private(set) var scheme: Scheme

    /// The scheme's name as challenges spell it ("Basic", "Digest").
    var schemeName: String {
        switch scheme {
        case .basic: "Basic"
        case .digest: "Digest"
        }
    }

    /// The state for answering `challenge`; nil when it is neither an answerable Digest nor a Basic
    /// challenge.
    init?(challenge: HTTPAuthenticationChallenge) {
        if let digest = HTTPDigestChallenge(challenge) {
            scheme = .digest(digest, nonceCount: 0)
        } else if challenge.hasScheme("Basic") {
            scheme = .basic
        } else {
            return nil
        }
    }

    /// Takes a new challenge for the same protection space and says what it means.
    mutating func update(with challenge: HTTPAuthenticationChallenge) -> Outcome {
        guard let next = HTTPAuthenticationState(challenge: challenge) else { return .cannotAnswer }
        let wasDigest = if case .digest = scheme { true } else { false }
        self = next
        if wasDigest, case .digest(let digest, _) = next.scheme, digest.stale { return .retryWithSameCredential }
        return .askForCredential
    }

    /// The Authorization (or Proxy-Authorization) value for a request with `method` to `uri` (its
    /// request target) with the given user and password; nil when Basic refuses them. A Digest answer
    /// uses the next nonce count and a client nonce from `cnonce`.
    mutating func authorization(method: String, uri: String, user: String, password: String,
                                cnonce: () -> String = HTTPAuthenticationState.randomClientNonce) -> String? {
        switch scheme {
        case .basic:
            return HTTPBasicAuthentication.authorization(user: user, password: password)
        case .digest(let challenge, let count):
            let next = count &+ 1
            scheme = .digest(challenge, nonceCount: next)
            return challenge.authorization(method: method, uri: uri, user: user, password: password,
                                           nonceCount: next, cnonce: cnonce())
        }
    }

    /// 16 random bytes as 32 lowercase hex digits.
    static func randomClientNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
