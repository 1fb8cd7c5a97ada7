import Foundation
import FWNetworking

// MARK: - HTTPAuthPolicy

/// `-u` with `--basic`, `--digest` or `--anyauth` as answers to a task's HTTP authentication challenges
/// (a 401's `NSURLAuthenticationMethodHTTPBasic` / `HTTPDigest` protection space), or `-U` with
/// `--proxy-digest` or `--proxy-anyauth` to a proxy's (a 407's): the session computes the Authorization
/// (Proxy-Authorization) values, Digest's nonce counts included, from the `URLCredential` answered here.
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
    /// True for the proxy's credentials (407 challenges of a proxy space), false for the server's (401).
    var forProxy = false

    /// True for the challenges this policy decides: a Basic or Digest challenge of the server (or of the
    /// proxy, for a proxy policy).
    func decides(_ challenge: URLAuthenticationChallenge) -> Bool {
        let space = challenge.protectionSpace
        let methods = [NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest]
        return space.isProxy() == forProxy && methods.contains(space.authenticationMethod)
    }

    /// The Authorization value every request carries from the start: Basic's for `--basic`, as curl sends
    /// it; nil for the schemes that wait for a challenge (and for a proxy, whose Basic the session sends).
    var preemptiveAuthorization: String? {
        guard scheme == .basic, !forProxy else { return nil }
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
