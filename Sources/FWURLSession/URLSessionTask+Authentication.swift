import Foundation
import FWTransport

// MARK: - HTTP authentication (401)
//
// A 401 whose WWW-Authenticate offers a challenge this client can answer (Digest first, else Basic:
// `HTTPAuthenticationChallenge.preferred`) becomes a task-level challenge for the realm's protection space,
// with delivery held until it is answered (through `DelegateRouter`: the task's delegate, else the session's;
// without either, default handling):
//
//   useCredential(user/password) ──▶ the request goes again with Authorization (the hop is replaced)
//   performDefaultHandling       ──▶ the same with the proposed credential: the credential storage's default
//                                    for the space, else the URL's user info; without one, the 401 is the
//                                    task's response (as FoundationNetworking does)
//   rejectProtectionSpace        ──▶ the next scheme the server offered, if any; else the 401 is delivered
//   cancelAuthenticationChallenge ─▶ the task is cancelled
//
// A repeated challenge for the same space means the credential was refused (`previousFailureCount` grows,
// at most `maximumFailures` times), except a Digest challenge with stale=true, which is answered again with
// the same credential without asking. The credential that got through is kept in the configuration's
// credential storage (`set(_:for:)` keeps only what its persistence allows). Credentials never cross
// origins: the space is the server's, and a redirect to another origin drops Authorization.

/// The challenge a task is answering and what it answered with.
struct TaskAuthentication {
    var space: URLProtectionSpace
    var state: HTTPAuthenticationState
    var credential: URLCredential?
    var failures = 0
    /// The challenges of the 401 being answered, for `rejectProtectionSpace` to move on to the next.
    var offered: [HTTPAuthenticationChallenge] = []

    /// The next step for a task answering a challenge.
    enum Step {
        /// Ask for a credential; the task was refused `failures` times in this protection space.
        case ask(failures: Int)
        /// Send the same credential again (Digest's `stale=true`).
        case again(URLCredential)
        /// Stop answering: the challenge is the response.
        case give
    }

    /// What to do about `challenge` for `space`, updating the task's record in `slot`: a new protection
    /// space starts afresh; in the same space a refusal counts as a failure, up to `maximumFailures`.
    static func step(answering challenge: HTTPAuthenticationChallenge, offered: [HTTPAuthenticationChallenge],
                     space: URLProtectionSpace, fresh: HTTPAuthenticationState, maximumFailures: Int,
                     in slot: inout TaskAuthentication?) -> Step {
        guard var current = slot, current.space == space else {
            slot = TaskAuthentication(space: space, state: fresh, offered: offered)
            return .ask(failures: 0)
        }
        let outcome = current.state.update(with: challenge)
        current.offered = offered
        defer { slot = current }
        switch outcome {
        case .retryWithSameCredential: return current.credential.map(Step.again) ?? .ask(failures: current.failures)
        case .askForCredential:
            current.failures += 1
            return current.failures > maximumFailures ? .give : .ask(failures: current.failures)
        case .cannotAnswer: return .give
        }
    }
}

extension URLSessionTask {
    /// How many refused credentials a task accepts before the 401 is its response.
    static let maximumAuthenticationFailures = 5

    /// What became of a 401.
    private enum Answer {
        /// A challenge was raised; delivery is held until it is answered.
        case asked
        /// The hop is replaced by the request carrying a credential.
        case replaced
        /// Nothing to answer with: the 401 is the response.
        case declined
    }

    /// Answers a 401 with a credential when its challenges allow it; false when the caller delivers it.
    func considerAuthentication(_ response: HTTPURLResponse, for request: URLRequest) -> Bool {
        guard response.statusCode == 401, let url = request.url else { return false }
        let fields = response.orderedHeaderFields.filter { $0.name.isEqualIgnoringASCIICase("WWW-Authenticate") }
        let offered = HTTPAuthenticationChallenge.challenges(in: fields.map(\.value))
        return answer(offered, response: response, url: url) != .declined
    }

    /// Picks the challenge to answer among `offered` and asks for a credential (or answers at once).
    private func answer(_ offered: [HTTPAuthenticationChallenge], response: HTTPURLResponse, url: URL) -> Answer {
        guard let challenge = HTTPAuthenticationChallenge.preferred(among: offered),
              let space = challenge.protectionSpace(forServerOf: url),
              let fresh = HTTPAuthenticationState(challenge: challenge) else { return .declined }
        let step = transfer.withLock { state in
            TaskAuthentication.step(answering: challenge, offered: offered, space: space, fresh: fresh,
                                    maximumFailures: Self.maximumAuthenticationFailures, in: &state.authentication)
        }
        switch step {
        case .give: return .declined
        case .again(let credential): return retry(with: credential) ? .replaced : .declined
        case .ask(let failures):
            ask(space, failures: failures, response: response, url: url)
            return .asked
        }
    }

    /// Raises the challenge for `space`, holding delivery until it is answered.
    private func ask(_ space: URLProtectionSpace, failures: Int, response: HTTPURLResponse, url: URL) {
        let proposed = failures == 0 ? proposedCredential(for: space, url: url) : nil
        hold(.awaitingAuthentication)
        let sender = URLSessionAuthenticationChallengeSender(task: self) { disposition, credential in
            self.session.delegateQueue.addOperation {
                self.decide(disposition, credential, proposed: proposed, response: response, url: url)
            }
        }
        let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: proposed,
                                                   previousFailureCount: failures, failureResponse: response,
                                                   error: nil, sender: sender)
        DelegateRouter.didReceive(challenge, task: self, answer: sender.answer)
    }

    /// The answer to the challenge (delegate queue). What it decides (a replaced hop, the 401 delivered, a
    /// new challenge) is in place before delivery goes on, so no event of the 401's hop slips past it.
    private func decide(_ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?,
                        proposed: URLCredential?, response: HTTPURLResponse, url: URL) {
        var outcome = Answer.declined
        switch disposition {
        case .useCredential:
            if let credential, retry(with: credential) { outcome = .replaced }
        case .performDefaultHandling:
            if let proposed, retry(with: proposed) { outcome = .replaced }
        case .rejectProtectionSpace:
            let remaining = transfer.withLock { state -> [HTTPAuthenticationChallenge] in
                guard let current = state.authentication else { return [] }
                state.authentication = nil
                return current.offered.filter { !$0.hasScheme(current.state.schemeName) }
            }
            outcome = answer(remaining, response: response, url: url)
        case .cancelAuthenticationChallenge:
            cancel()
            outcome = .replaced
        }
        if outcome == .declined { deliverResponse(response) }
        // A new challenge holds delivery again under the same hold: only the last answer lifts it.
        if outcome != .asked { release(.awaitingAuthentication) }
    }

    /// Replaces the hop with the request carrying `credential`'s answer; false when it cannot be answered.
    private func retry(with credential: URLCredential) -> Bool {
        guard let user = credential.user, let password = credential.password,
              let request = currentRequest, let url = request.url else { return false }
        let uri = url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true)
        let target = url.query(percentEncoded: true).map { uri + "?" + $0 } ?? uri
        return transfer.withLock { state -> Bool in
            guard var current = state.authentication,
                  let value = current.state.authorization(method: request.httpMethod ?? "GET", uri: target,
                                                          user: user, password: password) else { return false }
            current.credential = credential
            state.authentication = current
            var next = request
            next.setValue(value, forHTTPHeaderField: "Authorization")
            state.nextHop = NextHop(request: next, reason: .authentication)
            return true
        }
    }

    /// What default handling answers with: the storage's default credential for the space, else the URL's
    /// user info.
    private func proposedCredential(for space: URLProtectionSpace, url: URL) -> URLCredential? {
        if let stored = session.sessionConfiguration.urlCredentialStorage?.defaultCredential(for: space) { return stored }
        guard let user = url.user(percentEncoded: false), let password = url.password(percentEncoded: false) else {
            return nil
        }
        return URLCredential(user: user, password: password, persistence: .forSession)
    }

    /// A response to a request that carried a credential arrived: a success keeps the credential.
    func authenticationSucceeded(_ response: HTTPURLResponse) {
        guard response.statusCode != 401,
              let (credential, space) = transfer.withLock({ state -> (URLCredential, URLProtectionSpace)? in
                  guard let current = state.authentication, let credential = current.credential else { return nil }
                  state.authentication = nil
                  return (credential, current.space)
              }) else { return }
        session.sessionConfiguration.urlCredentialStorage?.set(credential, for: space)
    }
}
