import Foundation

// MARK: - Policy 4: HTTP authentication (401)
//
// A 401 whose WWW-Authenticate offers a challenge this client can answer (Digest first, else Basic:
// `HTTPAuthenticationChallenge.preferred`) becomes a task-level challenge for the realm's protection space
// (`ask`); the task raises it through `DelegateRouter` (the task's delegate, else the session's; without
// either, default handling) and hands the answer back here (`resolve`):
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
// credential storage (observe; `set(_:for:)` keeps only what its persistence allows). Credentials never
// cross origins: the space is the server's, and a redirect to another origin drops Authorization.

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

    /// The challenges offered but for the scheme being answered (`rejectProtectionSpace`).
    var remaining: [HTTPAuthenticationChallenge] {
        offered.filter { !$0.hasScheme(state.schemeName) }
    }
}

/// Policy 4: a server's 401.
enum AuthenticationHopPolicy {
    /// How many refused credentials a task accepts before the 401 is its response.
    static let maximumFailures = 5

    /// A response to a request that carried a credential arrived: a success keeps the credential.
    static func observe(_ response: HTTPURLResponse, _ state: inout TaskPolicyState,
                        _ configuration: URLSessionConfiguration) {
        keepCredential(after: response, challengedBy: 401, &state.authentication, configuration)
    }

    /// A response other than `status` (401, or a proxy's 407) after the task answered `current` with a
    /// credential: the credential worked, so it is stored and the challenge is over (policies 4 and 5).
    static func keepCredential(after response: HTTPURLResponse, challengedBy status: Int,
                               _ current: inout TaskAuthentication?, _ configuration: URLSessionConfiguration) {
        guard response.statusCode != status, let answered = current, let credential = answered.credential else {
            return
        }
        current = nil
        configuration.urlCredentialStorage?.set(credential, for: answered.space)
    }

    /// A 401 with a challenge this client can answer asks for a credential (or answers it at once).
    static func decide(_ hop: Hop, _ response: HTTPURLResponse, _ state: inout TaskPolicyState,
                       _ configuration: URLSessionConfiguration) -> HopDecision {
        guard response.statusCode == 401, let request = hop.request, request.url != nil else { return .continue }
        let offered = HTTPAuthenticationChallenge.challenges(in: response.fieldValues(named: "WWW-Authenticate"))
        return answer(offered, response: response, request: request, &state, configuration)
    }

    /// The answer to the challenge this policy raised.
    static func resolve(_ challenge: HopChallenge, _ disposition: URLSession.AuthChallengeDisposition,
                        _ credential: URLCredential?, _ hop: Hop, _ state: inout TaskPolicyState,
                        _ configuration: URLSessionConfiguration) -> HopDecision {
        guard let request = hop.request else { return .continue }
        switch disposition {
        case .useCredential:
            return credential.flatMap { retry(request, with: $0, &state) }.map(HopDecision.replace) ?? .continue
        case .performDefaultHandling:
            return challenge.proposed.flatMap { retry(request, with: $0, &state) }.map(HopDecision.replace) ?? .continue
        case .rejectProtectionSpace:
            let remaining = state.authentication?.remaining ?? []
            state.authentication = nil
            return answer(remaining, response: challenge.response, request: request, &state, configuration)
        case .cancelAuthenticationChallenge:
            return .cancelTask
        }
    }

    // MARK: Answering

    /// Picks the challenge to answer among `offered`: asks, answers again (stale nonce) or gives up.
    private static func answer(_ offered: [HTTPAuthenticationChallenge], response: HTTPURLResponse,
                               request: URLRequest, _ state: inout TaskPolicyState,
                               _ configuration: URLSessionConfiguration) -> HopDecision {
        guard let url = request.url, let challenge = HTTPAuthenticationChallenge.preferred(among: offered),
              let space = challenge.protectionSpace(forServerOf: url),
              let fresh = HTTPAuthenticationState(challenge: challenge) else { return .continue }
        let step = TaskAuthentication.step(answering: challenge, offered: offered, space: space, fresh: fresh,
                                           maximumFailures: maximumFailures, in: &state.authentication)
        switch step {
        case .give:
            return .continue
        case .again(let credential):
            return retry(request, with: credential, &state).map(HopDecision.replace) ?? .continue
        case .ask(let failures):
            let proposed = failures == 0 ? proposedCredential(for: space, url: url, configuration) : nil
            return .ask(.challenge(HopChallenge(space: space, proposed: proposed, failures: failures,
                                                response: response)))
        }
    }

    /// The request carrying `credential`'s answer; nil when it cannot be answered.
    private static func retry(_ request: URLRequest, with credential: URLCredential,
                              _ state: inout TaskPolicyState) -> NextHop? {
        guard let user = credential.user, let password = credential.password, let url = request.url,
              var current = state.authentication else { return nil }
        let uri = url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true)
        let target = url.query(percentEncoded: true).map { uri + "?" + $0 } ?? uri
        guard let value = current.state.authorization(method: request.httpMethod ?? "GET", uri: target, user: user,
                                                      password: password) else { return nil }
        current.credential = credential
        state.authentication = current
        var next = request
        next.setValue(value, forHTTPHeaderField: "Authorization")
        return NextHop(request: next, reason: .authentication)
    }

    /// What default handling answers with: the storage's default credential for the space, else the URL's
    /// user info.
    private static func proposedCredential(for space: URLProtectionSpace, url: URL,
                                           _ configuration: URLSessionConfiguration) -> URLCredential? {
        if let stored = configuration.urlCredentialStorage?.defaultCredential(for: space) { return stored }
        guard let user = url.user(percentEncoded: false), let password = url.password(percentEncoded: false) else {
            return nil
        }
        return URLCredential(user: user, password: password, persistence: .forSession)
    }
}
