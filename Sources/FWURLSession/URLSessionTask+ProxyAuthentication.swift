import Foundation
import FWTransport

// MARK: - Proxy authentication (407)
//
// A 407 from an HTTP proxy is answered as a 401 is (`URLSessionTask+Authentication.swift`), whether it is
// the response to a plain request sent to the proxy in absolute form or the answer to the CONNECT of a
// tunnel (which the transport reports as an `authenticationRequired` ProxyError carrying the 407's
// Proxy-Authenticate values). The preferred challenge (Digest, else Basic) becomes a task-level challenge
// for the proxy's protection space — `NSURLProtectionSpaceHTTPProxy` for plain requests,
// `NSURLProtectionSpaceHTTPSProxy` for tunnels — with delivery held until it is answered:
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
// refused (`previousFailureCount` grows, at most `maximumAuthenticationFailures` times), except a stale
// Digest nonce, answered again without asking. A Digest answer is computed once per challenge (one nonce
// count) and kept for the task's later requests through the same proxy. The credential that got through is
// kept in the configuration's credential storage.

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

extension URLSessionTask {
    /// What a 407 came as.
    private enum ProxyFailure {
        /// The response to a plain request.
        case response(HTTPURLResponse)
        /// A tunnel's failure: the task's error if nothing answers, and a response standing for the 407.
        case tunnel(URLError, HTTPURLResponse)

        var response: HTTPURLResponse {
            switch self {
            case .response(let response), .tunnel(_, let response): response
            }
        }
    }

    /// The request a proxy challenge is answered for.
    private struct ProxyHop {
        var proxy: ProxyServer
        /// `NSURLProtectionSpaceHTTPProxy` or `NSURLProtectionSpaceHTTPSProxy`.
        var spaceType: String
        /// The method and request target the Digest answer covers.
        var method: String
        var uri: String
    }

    /// What became of a 407.
    private enum ProxyAnswer {
        case asked, replaced, declined
    }

    /// Answers a 407 response to a plain request sent through an HTTP proxy; false when the caller delivers it.
    func considerProxyAuthentication(_ response: HTTPURLResponse, for request: URLRequest) -> Bool {
        guard response.statusCode == 407, let url = request.url, url.scheme?.lowercased() == "http",
              let proxy = transfer.withLock({ $0.hopProxy }), proxy.kind == .http else { return false }
        var target = URLComponents(url: url, resolvingAgainstBaseURL: false)
        target?.fragment = nil
        let hop = ProxyHop(proxy: proxy, spaceType: NSURLProtectionSpaceHTTPProxy, method: request.httpMethod ?? "GET",
                           uri: target?.string ?? url.absoluteString)
        let fields = response.orderedHeaderFields.filter { $0.name.isEqualIgnoringASCIICase("Proxy-Authenticate") }
        let offered = HTTPAuthenticationChallenge.challenges(in: fields.map(\.value))
        return answerProxy(offered, hop: hop, failure: .response(response)) != .declined
    }

    /// A tunnel the proxy would not open without (other) credentials: true when that is being answered (the
    /// task waits), false when `error` ends the task.
    func considerTunnelAuthentication(_ error: TransportError) -> Bool {
        guard let refusal = error.underlying as? ProxyError, refusal.isAuthenticationRequired,
              !refusal.proxyAuthenticate.isEmpty, let url = currentRequest?.url,
              let proxy = transfer.withLock({ $0.hopProxy }), proxy.kind == .http,
              let key = ConnectionKey(url: url),
              let response = HTTPURLResponse(url: url, statusCode: 407, httpVersion: "HTTP/1.1", headerFields: [
                  "Proxy-Authenticate": refusal.proxyAuthenticate.joined(separator: ", "),
              ]) else { return false }
        let hop = ProxyHop(proxy: proxy, spaceType: NSURLProtectionSpaceHTTPSProxy, method: "CONNECT",
                           uri: key.authority)
        let offered = HTTPAuthenticationChallenge.challenges(in: refusal.proxyAuthenticate)
        let failure = ProxyFailure.tunnel(URLError(error, url: url), response)
        return answerProxy(offered, hop: hop, failure: failure) != .declined
    }

    /// A response came through the proxy: a credential that got it through is kept.
    func proxyAuthenticationSucceeded(_ response: HTTPURLResponse) {
        guard response.statusCode != 407,
              let (credential, space) = transfer.withLock({ state -> (URLCredential, URLProtectionSpace)? in
                  guard let current = state.proxyAuthentication, let credential = current.credential else { return nil }
                  state.proxyAuthentication = nil
                  return (credential, current.space)
              }) else { return }
        session.sessionConfiguration.urlCredentialStorage?.set(credential, for: space)
    }

    // MARK: Answering

    /// Picks the challenge to answer among `offered` and asks for a credential (or answers at once).
    private func answerProxy(_ offered: [HTTPAuthenticationChallenge], hop: ProxyHop,
                             failure: ProxyFailure) -> ProxyAnswer {
        guard let challenge = HTTPAuthenticationChallenge.preferred(among: offered),
              let space = challenge.protectionSpace(forProxyHost: hop.proxy.host, port: hop.proxy.port,
                                                    type: hop.spaceType),
              let fresh = HTTPAuthenticationState(challenge: challenge) else { return .declined }
        let step = transfer.withLock { state in
            TaskAuthentication.step(answering: challenge, offered: offered, space: space, fresh: fresh,
                                    maximumFailures: Self.maximumAuthenticationFailures, in: &state.proxyAuthentication)
        }
        switch step {
        case .give: return .declined
        case .again(let credential): return retryThroughProxy(with: credential, hop: hop, failure: failure)
            ? .replaced : .declined
        case .ask(let failures):
            askProxy(space, basic: challenge.hasScheme("Basic"), failures: failures, hop: hop, failure: failure)
            return .asked
        }
    }

    /// Raises the challenge for the proxy's `space`, holding delivery until it is answered.
    private func askProxy(_ space: URLProtectionSpace, basic: Bool, failures: Int, hop: ProxyHop,
                          failure: ProxyFailure) {
        let proposed = failures == 0 ? proposedProxyCredential(for: space, proxy: hop.proxy, basic: basic) : nil
        hold(.awaitingAuthentication)
        let sender = URLSessionAuthenticationChallengeSender(task: self) { disposition, credential in
            self.session.delegateQueue.addOperation {
                self.decideProxy(disposition, credential, proposed: proposed, hop: hop, failure: failure)
            }
        }
        var error: URLError?
        if case .tunnel(let tunnelError, _) = failure { error = tunnelError }
        let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: proposed,
                                                   previousFailureCount: failures, failureResponse: failure.response,
                                                   error: error, sender: sender)
        DelegateRouter.didReceive(challenge, task: self, answer: sender.answer)
    }

    /// The answer to the proxy's challenge (delegate queue).
    private func decideProxy(_ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?,
                             proposed: URLCredential?, hop: ProxyHop, failure: ProxyFailure) {
        var outcome = ProxyAnswer.declined
        switch disposition {
        case .useCredential:
            if let credential, retryThroughProxy(with: credential, hop: hop, failure: failure) { outcome = .replaced }
        case .performDefaultHandling:
            if let proposed, retryThroughProxy(with: proposed, hop: hop, failure: failure) { outcome = .replaced }
        case .rejectProtectionSpace:
            let remaining = transfer.withLock { state -> [HTTPAuthenticationChallenge] in
                guard let current = state.proxyAuthentication else { return [] }
                state.proxyAuthentication = nil
                return current.offered.filter { !$0.hasScheme(current.state.schemeName) }
            }
            outcome = answerProxy(remaining, hop: hop, failure: failure)
        case .cancelAuthenticationChallenge:
            cancel()
            // A tunnel's hop has already ended: nothing else would complete the task.
            if case .tunnel = failure {
                finish(error: URLError(.cancelled, url: currentRequest?.url, description: "cancelled"))
            }
            outcome = .replaced
        }
        if outcome == .declined {
            switch failure {
            case .response(let response): deliverResponse(response)
            case .tunnel(let error, _): finish(error: error)
            }
        }
        // A new challenge holds delivery again under the same hold: only the last answer lifts it.
        if outcome != .asked { release(.awaitingAuthentication) }
    }

    /// Replaces the hop with the same request, the proxy given `credential`'s answer; false when it cannot be
    /// answered. A tunnel's hop has ended already, so its replacement goes out at once.
    private func retryThroughProxy(with credential: URLCredential, hop: ProxyHop, failure: ProxyFailure) -> Bool {
        guard let user = credential.user, let password = credential.password, let request = currentRequest else {
            return false
        }
        let replaced = transfer.withLock { state -> Bool in
            guard var current = state.proxyAuthentication,
                  let value = current.state.authorization(method: hop.method, uri: hop.uri, user: user,
                                                          password: password) else { return false }
            current.credential = credential
            state.proxyAuthentication = current
            state.proxyAuthorization = ProxyAuthorization(host: hop.proxy.host, port: hop.proxy.port, value: value)
            state.nextHop = NextHop(request: request, reason: .authentication)
            return true
        }
        if replaced, case .tunnel = failure { sendNextHop() }
        return replaced
    }

    /// What default handling answers with: the storage's default credential for the space, else the proxy
    /// settings' credentials — unless the challenge is Basic, which the transport already answered with them.
    private func proposedProxyCredential(for space: URLProtectionSpace, proxy: ProxyServer,
                                         basic: Bool) -> URLCredential? {
        if let stored = session.sessionConfiguration.urlCredentialStorage?.defaultCredential(for: space) { return stored }
        guard !basic, let configured = proxy.credentials else { return nil }
        return URLCredential(user: configured.user, password: configured.password, persistence: .forSession)
    }
}
