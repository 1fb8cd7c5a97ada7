import Foundation
import FWTransport

// MARK: - The session's services as policies over a hop, in one order
//
// Each service a session offers its tasks reads the current `Hop` and decides about it; none calls a delegate
// or the transport itself. The task (`URLSessionTask+HopPolicies.swift`) walks them and executes what they
// decide: it sends, asks the delegate, delivers, fails. They are asked in this order, `HopPolicies.standard`:
//
//   #  policy                 prepare (before sending)            response head            end / failure
//   1  urlProtocol            a URL protocol class takes the hop:  (its events: +Protocol)
//                             source .urlProtocol, the rest of
//                             the walk is skipped
//   2  cookies                `Cookie` and the session's default   observe: store Set-Cookie
//                             fields → `outgoing`                  (3xx and 401 too)
//   3  cache                  `CachePolicyDecision` → serve,       observe: invalidate for  end: propose the
//                             validate (conditional), load, fail   unsafe methods; decide:  body → ask
//                                                                  304 → serve or replace   (willCache)
//                                                                  (unconditional);
//                                                                  storable → keep the body
//   4  authentication         –                                    observe: a non-401 after
//                                                                  a credential stores it;
//                                                                  decide: 401 → ask or
//                                                                  replace (stale nonce)
//   5  proxyAuthentication    (the kept Proxy-Authorization goes   as 4, for a plain 407    failure: a tunnel's
//                             with the hop's proxy: `transmit`)                             407 → ask, replace
//   6  redirect               –                                    decide: 3xx with a
//                                                                  Location → ask, or fail
//                                                                  past 16 redirects
//   7  connectivity           –                                    –                        failure: no route →
//                                                                                           wait, or fail with
//                                                                                           notConnected
//
// A prepare walk stops at the first decision other than `continue` or when the hop left the network (a URL
// protocol took it); a response walk runs every `observe`, then `decide` in order, stopping at the first
// decision other than `continue`; an end or failure walk likewise. A question (`ask`) is answered later, from
// any thread; the task brings the answer back to the delegate queue and hands it to the policy that asked
// (`resolve`), whose `continue` goes on with the policies after it. Policies are pure over the hop, their
// `TaskPolicyState`, the configuration and its storages, so each has table tests without a server
// (`Tests/FWURLSessionTests/Policies/`). Policies are plain enums dispatched by a switch: a walk allocates
// nothing (they step by raw value, not over an array), and each step returns at once when its service is off
// (cookies off, no cache, no credential).

/// One of the session's services, as a policy over a hop; `HopPolicies.standard` is their order.
enum HopPolicy: UInt8, CaseIterable, Sendable {
    case urlProtocol
    case cookies
    case cache
    case authentication
    case proxyAuthentication
    case redirect
    case connectivity
}

/// What a policy decided about a hop.
enum HopDecision {
    /// Nothing to do: the next policy is asked (at the end of the walk: the hop goes on as it is).
    case `continue`
    /// The hop is replaced by another request once it ends.
    case replace(NextHop)
    /// A stored response is the hop's response (no network, or a 304 that refreshed it).
    case serve(CachedURLResponse)
    /// The delegate (or the sink) must answer first.
    case ask(HopQuestion)
    /// The task fails.
    case fail(URLError)
    /// The task is cancelled (an answer to a challenge).
    case cancelTask
    /// The task waits for a route to its host; when it cannot, it fails with the error given.
    case waitForRoute(otherwise: URLError)

    /// The decision without its payload, as `HopDecisions` records it.
    enum Kind: UInt8, Sendable {
        case `continue`, replace, serve, ask, fail, cancelTask, waitForRoute
    }

    var kind: Kind {
        switch self {
        case .continue: .continue
        case .replace: .replace
        case .serve: .serve
        case .ask: .ask
        case .fail: .fail
        case .cancelTask: .cancelTask
        case .waitForRoute: .waitForRoute
        }
    }
}

/// What a policy asks before it decides.
enum HopQuestion {
    /// Follow the redirect `response` asks for to `next`? (`willPerformHTTPRedirection`)
    case redirect(URLRequest, response: HTTPURLResponse)
    /// A credential for a server's or a proxy's challenge. Boxed: a challenge is many words, and every
    /// decision a walk returns, `continue` too, would be as large.
    indirect case challenge(HopChallenge)
    /// What to store of `proposal`, stored under `request` (`willCacheResponse`, through the sink).
    case willCache(CachedURLResponse, request: URLRequest)
}

/// The answer to a `HopQuestion`.
enum HopAnswer {
    case redirect(URLRequest?)
    case challenge(URLSession.AuthChallengeDisposition, URLCredential?)
    case willCache(CachedURLResponse?)
}

/// A task-level challenge a policy raises: for a server's 401 or a proxy's 407.
struct HopChallenge {
    var space: URLProtectionSpace
    var proposed: URLCredential?
    var failures: Int
    /// The 401 or 407 (for a tunnel, a response standing for the 407).
    var response: HTTPURLResponse
    /// A tunnel's failure: the task's error when nothing answers.
    var error: URLError?
    /// For a proxy's challenge: the proxy and what its Digest answer covers.
    var proxy: ProxyTarget?
}

/// What policies read beyond the hop and their state.
struct HopContext {
    var configuration: URLSessionConfiguration
    /// The session's default fields, made once (prepare walks only).
    var requestTemplate: RequestTemplate?
    /// The URL protocol class that takes the hop (prepare walks only).
    var protocolClass: URLProtocol.Type?
    /// Whether the task's sink collects the body (the cache then stores that body).
    var sinkCollectsBody = false
    /// When the walk runs (a hop's `sentAt`, the cache's clock), on the session's clock.
    var now: Date
}

// MARK: - Steps

extension HopPolicy {
    /// Before the hop is sent.
    func prepare(_ hop: inout Hop, _ state: TaskPolicyState, _ context: HopContext) -> HopDecision {
        switch self {
        case .urlProtocol: ProtocolHopPolicy.prepare(&hop, context)
        case .cookies: CookieHopPolicy.prepare(&hop, context.configuration, template: context.requestTemplate)
        case .cache: CacheHopPolicy.prepare(&hop, context)
        case .authentication, .proxyAuthentication, .redirect, .connectivity: .continue
        }
    }

    /// The hop's response head arrived: what the policy learns from it, whatever is decided.
    func observe(_ hop: Hop, _ response: HTTPURLResponse, _ state: inout TaskPolicyState, _ context: HopContext) {
        switch self {
        case .cookies: CookieHopPolicy.observe(hop, response, context.configuration)
        case .cache: CacheHopPolicy.observe(hop, response, context.configuration)
        case .authentication: AuthenticationHopPolicy.observe(response, &state, context.configuration)
        case .proxyAuthentication: ProxyAuthenticationHopPolicy.observe(response, &state, context.configuration)
        case .urlProtocol, .redirect, .connectivity: break
        }
    }

    /// What the hop's response head decides.
    func decide(_ hop: inout Hop, _ response: HTTPURLResponse, _ state: inout TaskPolicyState,
                _ context: HopContext) -> HopDecision {
        switch self {
        case .cache: CacheHopPolicy.decide(&hop, response, context)
        case .authentication: AuthenticationHopPolicy.decide(hop, response, &state, context.configuration)
        case .proxyAuthentication: ProxyAuthenticationHopPolicy.decide(hop, response, &state, context.configuration)
        case .redirect: RedirectHopPolicy.decide(hop, response, state)
        case .urlProtocol, .cookies, .connectivity: .continue
        }
    }

    /// The answer to the question this policy asked.
    func resolve(_ question: HopQuestion, _ answer: HopAnswer, _ hop: inout Hop, _ state: inout TaskPolicyState,
                 _ context: HopContext) -> HopDecision {
        switch (self, question, answer) {
        case (.redirect, _, .redirect(let chosen)):
            RedirectHopPolicy.resolve(chosen)
        case (.authentication, .challenge(let challenge), .challenge(let disposition, let credential)):
            AuthenticationHopPolicy.resolve(challenge, disposition, credential, hop, &state, context.configuration)
        case (.proxyAuthentication, .challenge(let challenge), .challenge(let disposition, let credential)):
            ProxyAuthenticationHopPolicy.resolve(challenge, disposition, credential, hop, &state,
                                                 context.configuration)
        case (.cache, .willCache(_, let request), .willCache(let chosen)):
            CacheHopPolicy.resolve(chosen, request: request, context.configuration)
        default:
            .continue
        }
    }

    /// The hop ended successfully (`collectedBody`: the sink's, when it collects one).
    func ended(_ hop: inout Hop, collectedBody: () -> Data?, _ context: HopContext) -> HopDecision {
        switch self {
        case .cache: CacheHopPolicy.ended(&hop, collectedBody: collectedBody, context.configuration)
        default: .continue
        }
    }

    /// The hop's transport failed with `error` (`mapped`: the URLError it stands for); `interfaceUp` tells
    /// whether an interface but loopback is up (nil: no monitor can tell).
    func failed(_ hop: Hop, _ error: TransportError, mapped: URLError, _ state: inout TaskPolicyState,
                _ context: HopContext, interfaceUp: () -> Bool?) -> HopDecision {
        switch self {
        case .proxyAuthentication:
            ProxyAuthenticationHopPolicy.failed(hop, error, mapped: mapped, &state, context.configuration)
        case .connectivity:
            ConnectivityHopPolicy.failed(error, url: hop.request?.url, context.configuration, interfaceUp: interfaceUp)
        default:
            .continue
        }
    }
}

// MARK: - Walks

/// The order of the policies, and the walks over them.
enum HopPolicies {
    /// The documented order (see the opening comment of `HopPolicy.swift`): `HopPolicy`'s cases are declared in
    /// it, so their raw values count up along it.
    static let standard: [HopPolicy] = [
        .urlProtocol, .cookies, .cache, .authentication, .proxyAuthentication, .redirect, .connectivity,
    ]

    /// The policy after `policy` in the order (the first when nil). Walks step with it rather than iterate
    /// `standard`: an array's iterator allocates per element in a debug build, and the small-request budget
    /// (`Tests/AllocationBudget`) counts debug builds too.
    @inline(__always)
    static func policy(after policy: HopPolicy?) -> HopPolicy? {
        HopPolicy(rawValue: policy.map { $0.rawValue + 1 } ?? 0)
    }

    /// Prepares the hop for sending: stops at the first decision other than `continue`, or once a URL
    /// protocol took it. nil: send `hop.transmitted ?? hop.outgoing` to the transport.
    static func prepare(_ hop: inout Hop, _ state: TaskPolicyState,
                        _ context: HopContext) -> (HopPolicy, HopDecision)? {
        hop.sentAt = context.now
        var next = policy(after: nil)
        while let policy = next {
            next = self.policy(after: policy)
            let decision = policy.prepare(&hop, state, context)
            hop.decisions[policy] = decision.kind
            guard case .continue = decision else { return (policy, decision) }
            if hop.protocolLoad != nil { return nil }
        }
        return nil
    }

    /// The response head `response` arrived: every `observe`, then `decide` in order. nil: the response is
    /// delivered as it is.
    static func respond(to response: HTTPURLResponse, _ hop: inout Hop, _ state: inout TaskPolicyState,
                        _ context: HopContext) -> (HopPolicy, HopDecision)? {
        var next = policy(after: nil)
        while let policy = next {
            next = self.policy(after: policy)
            policy.observe(hop, response, &state, context)
        }
        return decide(response, after: nil, &hop, &state, context)
    }

    /// The `decide` steps after `previous` (all of them when nil).
    static func decide(_ response: HTTPURLResponse, after previous: HopPolicy?, _ hop: inout Hop,
                       _ state: inout TaskPolicyState, _ context: HopContext) -> (HopPolicy, HopDecision)? {
        var next = policy(after: previous)
        while let policy = next {
            next = self.policy(after: policy)
            let decision = policy.decide(&hop, response, &state, context)
            hop.decisions[policy] = decision.kind
            guard case .continue = decision else { return (policy, decision) }
        }
        return nil
    }

    /// The hop ended successfully. nil: the task completes.
    static func end(_ hop: inout Hop, collectedBody: () -> Data?,
                    _ context: HopContext) -> (HopPolicy, HopDecision)? {
        var next = policy(after: nil)
        while let policy = next {
            next = self.policy(after: policy)
            let decision = policy.ended(&hop, collectedBody: collectedBody, context)
            guard case .continue = decision else {
                hop.decisions[policy] = decision.kind
                return (policy, decision)
            }
        }
        return nil
    }

    /// The hop's transport failed. nil: the task fails with `mapped`.
    static func fail(_ hop: inout Hop, _ error: TransportError, mapped: URLError, _ state: inout TaskPolicyState,
                     _ context: HopContext, interfaceUp: () -> Bool?) -> (HopPolicy, HopDecision)? {
        var next = policy(after: nil)
        while let policy = next {
            next = self.policy(after: policy)
            let decision = policy.failed(hop, error, mapped: mapped, &state, context, interfaceUp: interfaceUp)
            guard case .continue = decision else {
                hop.decisions[policy] = decision.kind
                return (policy, decision)
            }
        }
        return nil
    }
}
