import Foundation
import FWTransport

// MARK: - Policy 5: proxy authentication (407)
//
// A 407 from an HTTP proxy is answered as a 401 is (`AuthenticationHopPolicy`), whether it is the response
// to a plain request sent to the proxy in absolute form (decide) or the answer to the CONNECT of a tunnel,
// which the transport reports as an `authenticationRequired` ProxyError carrying the 407's
// Proxy-Authenticate values (failed). The preferred challenge (Digest, else Basic) becomes a task-level
// challenge for the proxy's protection space — `NSURLProtectionSpaceHTTPProxy` for plain requests,
// `NSURLProtectionSpaceHTTPSProxy` for tunnels:
//
//   useCredential(user/password) ──▶ the request goes again, the proxy given the answer's Proxy-Authorization
//                                    (`ProxyServer.authorization`: a tunnel is opened again on a new connection)
//   performDefaultHandling       ──▶ the same with the proposed credential: the credential storage's default
//                                    for the space, else the proxy settings' credentials when the transport
//                                    has not already sent them with Basic; without one, the 407 is the
//                                    response (a tunnel's failure the task's error)
//   rejectProtectionSpace        ──▶ the next scheme the proxy offered, if any; else as without a credential
//   cancelAuthenticationChallenge ─▶ the task is cancelled
//
// The transport carries the value; the session decides it. A repeated challenge means the credential was
// refused (at most `AuthenticationHopPolicy.maximumFailures` times), except a stale Digest nonce, answered
// again without asking. A Digest answer is computed once per challenge (one nonce count) and kept for the
// task's later requests through the same proxy (`authorization(for:)`, which `transmit` gives the transport).
// The credential that got through is kept in the configuration's credential storage (observe).

/// A Proxy-Authorization value answering a proxy's challenge, and the proxy it answers.
struct ProxyAuthorization {
    var host: String
    var port: Int
    var value: String

    /// True when `proxy` is the HTTP proxy this value answers.
    func isFor(_ proxy: ProxyServer) -> Bool {
        proxy.kind == .http && proxy.host == host && proxy.port == port
    }
}

/// The request a proxy challenge is answered for.
struct ProxyTarget {
    var proxy: ProxyServer
    /// `NSURLProtectionSpaceHTTPProxy` or `NSURLProtectionSpaceHTTPSProxy`.
    var spaceType: String
    /// The method and request target the Digest answer covers.
    var method: String
    var uri: String
}

/// Policy 5: a proxy's 407.
enum ProxyAuthenticationHopPolicy {
    /// The kept answer for the hop's `proxy`, if one was given for it.
    static func authorization(for proxy: ProxyServer?, _ state: TaskPolicyState) -> String? {
        guard let proxy, let answer = state.proxyAuthorization, answer.isFor(proxy) else { return nil }
        return answer.value
    }

    /// A response came through the proxy: a credential that got it through is kept.
    static func observe(_ response: HTTPURLResponse, _ state: inout TaskPolicyState,
                        _ configuration: URLSessionConfiguration) {
        AuthenticationHopPolicy.keepCredential(after: response, challengedBy: 407, &state.proxyAuthentication,
                                               configuration)
    }

    /// A 407 response to a plain request sent through an HTTP proxy.
    static func decide(_ hop: Hop, _ response: HTTPURLResponse, _ state: inout TaskPolicyState,
                       _ configuration: URLSessionConfiguration) -> HopDecision {
        guard response.statusCode == 407, let request = hop.request, let url = request.url,
              url.scheme?.lowercased() == "http", let proxy = hop.proxy, proxy.kind == .http else { return .continue }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.fragment = nil
        let target = ProxyTarget(proxy: proxy, spaceType: NSURLProtectionSpaceHTTPProxy,
                                 method: request.httpMethod ?? "GET", uri: components?.string ?? url.absoluteString)
        let offered = HTTPAuthenticationChallenge.challenges(in: response.fieldValues(named: "Proxy-Authenticate"))
        return answer(offered, target: target, response: response, error: nil, request: request, &state, configuration)
    }

    /// A tunnel the proxy would not open without (other) credentials (`mapped`: the task's error if nothing
    /// answers).
    static func failed(_ hop: Hop, _ error: TransportError, mapped: URLError, _ state: inout TaskPolicyState,
                       _ configuration: URLSessionConfiguration) -> HopDecision {
        guard let refusal = error.underlying as? ProxyError, refusal.isAuthenticationRequired,
              !refusal.proxyAuthenticate.isEmpty, let request = hop.request, let url = request.url,
              let proxy = hop.proxy, proxy.kind == .http, let key = ConnectionKey(url: url),
              let response = HTTPURLResponse(url: url, statusCode: 407, httpVersion: "HTTP/1.1", headerFields: [
                  "Proxy-Authenticate": refusal.proxyAuthenticate.joined(separator: ", "),
              ]) else { return .continue }
        let target = ProxyTarget(proxy: proxy, spaceType: NSURLProtectionSpaceHTTPSProxy, method: "CONNECT",
                                 uri: key.authority)
        let offered = HTTPAuthenticationChallenge.challenges(in: refusal.proxyAuthenticate)
        return answer(offered, target: target, response: response, error: mapped, request: request, &state,
                      configuration)
    }

    /// The answer to the challenge this policy raised.
    static func resolve(_ challenge: HopChallenge, _ disposition: URLSession.AuthChallengeDisposition,
                        _ credential: URLCredential?, _ hop: Hop, _ state: inout TaskPolicyState,
                        _ configuration: URLSessionConfiguration) -> HopDecision {
        guard let target = challenge.proxy, let request = hop.request else { return declined(challenge.error) }
        var next: NextHop?
        switch disposition {
        case .useCredential:
            next = credential.flatMap { retry(request, with: $0, target: target, &state) }
        case .performDefaultHandling:
            next = challenge.proposed.flatMap { retry(request, with: $0, target: target, &state) }
        case .rejectProtectionSpace:
            let remaining = state.proxyAuthentication?.remaining ?? []
            state.proxyAuthentication = nil
            return answer(remaining, target: target, response: challenge.response, error: challenge.error,
                          request: request, &state, configuration)
        case .cancelAuthenticationChallenge:
            return .cancelTask
        }
        return next.map(HopDecision.replace) ?? declined(challenge.error)
    }

    // MARK: Answering

    /// Nothing answers: the 407 is the response, or a tunnel's failure the task's error.
    private static func declined(_ error: URLError?) -> HopDecision {
        error.map(HopDecision.fail) ?? .continue
    }

    /// Picks the challenge to answer among `offered`: asks, answers again (stale nonce) or gives up.
    private static func answer(_ offered: [HTTPAuthenticationChallenge], target: ProxyTarget,
                               response: HTTPURLResponse, error: URLError?, request: URLRequest,
                               _ state: inout TaskPolicyState, _ configuration: URLSessionConfiguration)
        -> HopDecision {
        guard let challenge = HTTPAuthenticationChallenge.preferred(among: offered),
              let space = challenge.protectionSpace(forProxyHost: target.proxy.host, port: target.proxy.port,
                                                    type: target.spaceType),
              let fresh = HTTPAuthenticationState(challenge: challenge) else { return declined(error) }
        let step = TaskAuthentication.step(answering: challenge, offered: offered, space: space, fresh: fresh,
                                           maximumFailures: AuthenticationHopPolicy.maximumFailures,
                                           in: &state.proxyAuthentication)
        switch step {
        case .give:
            return declined(error)
        case .again(let credential):
            return retry(request, with: credential, target: target, &state).map(HopDecision.replace)
                ?? declined(error)
        case .ask(let failures):
            let proposed = failures == 0
                ? proposedCredential(for: space, proxy: target.proxy, basic: challenge.hasScheme("Basic"),
                                     configuration)
                : nil
            return .ask(.challenge(HopChallenge(space: space, proposed: proposed, failures: failures,
                                                response: response, error: error, proxy: target)))
        }
    }

    /// The same request, the proxy given `credential`'s answer (kept for the task's later requests); nil
    /// when it cannot be answered.
    private static func retry(_ request: URLRequest, with credential: URLCredential, target: ProxyTarget,
                              _ state: inout TaskPolicyState) -> NextHop? {
        guard let user = credential.user, let password = credential.password,
              var current = state.proxyAuthentication,
              let value = current.state.authorization(method: target.method, uri: target.uri, user: user,
                                                      password: password) else { return nil }
        current.credential = credential
        state.proxyAuthentication = current
        state.proxyAuthorization = ProxyAuthorization(host: target.proxy.host, port: target.proxy.port, value: value)
        return NextHop(request: request, reason: .proxyAuthentication)
    }

    /// What default handling answers with: the storage's default credential for the space, else the proxy
    /// settings' credentials — unless the challenge is Basic, which the transport already answered with them.
    private static func proposedCredential(for space: URLProtectionSpace, proxy: ProxyServer, basic: Bool,
                                           _ configuration: URLSessionConfiguration) -> URLCredential? {
        if let stored = configuration.urlCredentialStorage?.defaultCredential(for: space) { return stored }
        guard !basic, let configured = proxy.credentials else { return nil }
        return URLCredential(user: configured.user, password: configured.password, persistence: .forSession)
    }
}
