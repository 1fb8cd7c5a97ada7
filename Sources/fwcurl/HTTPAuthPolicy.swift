import Foundation
import FWNetworking

// MARK: - HTTPAuthPolicy

/// `-u` with `--basic`, `--digest` or `--anyauth` as answers to a task's HTTP authentication challenges
/// (a 401's `NSURLAuthenticationMethodHTTPBasic` / `HTTPDigest` protection space): the session computes
/// the Authorization values (Digest's nonce counts included) from the `URLCredential` answered here.
///
/// As curl: one credential per challenge, never again once refused. A challenge is answered only when its
/// scheme is allowed and nothing was refused before it (`previousFailureCount` 0); otherwise the answer is
/// `rejectProtectionSpace`, and when the 401 offers nothing else the session delivers it as the response.
/// `Transfer` also refuses a further scheme of a 401 it already refused (see `Transfer+Trace.swift`).
struct HTTPAuthPolicy: Sendable {
    /// Which schemes are answered.
    enum Scheme: Sendable {
        /// `--basic`: Basic, sent before any challenge; challenges are not answered.
        case basic
        /// `--digest`: Digest challenges.
        case digest
        /// `--anyauth`: the scheme the session prefers among those offered (Digest, else Basic).
        case any
    }

    var user: String
    var password: String
    var scheme: Scheme

    /// True for the challenges this policy decides: a server's Basic or Digest challenge.
    static func decides(_ challenge: URLAuthenticationChallenge) -> Bool {
        let space = challenge.protectionSpace
        return !space.isProxy() && [NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest]
            .contains(space.authenticationMethod)
    }

    /// The Authorization value every request carries from the start: Basic's for `--basic`, as curl sends
    /// it; nil for the schemes that wait for a challenge.
    var preemptiveAuthorization: String? {
        guard scheme == .basic else { return nil }
        return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The credential answering `challenge`, or nil when it is to be refused.
    func credential(for challenge: URLAuthenticationChallenge) -> URLCredential? {
        guard challenge.previousFailureCount == 0 else { return nil }
        let allowed = switch (scheme, challenge.protectionSpace.authenticationMethod) {
        case (.digest, NSURLAuthenticationMethodHTTPDigest): true
        case (.any, NSURLAuthenticationMethodHTTPDigest), (.any, NSURLAuthenticationMethodHTTPBasic): true
        default: false
        }
        return allowed ? URLCredential(user: user, password: password, persistence: .none) : nil
    }
}
