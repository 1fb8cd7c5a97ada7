import Foundation
import FWTransport

// MARK: - Hop: one request a task sends
//
// A task loads its request in hops: the first request, then one more for each redirect followed, each
// challenge answered with a credential, each 304 that matched nothing stored (sent again without
// conditions) and each retry after waiting for a route. A `Hop` is everything about the request being sent
// now, replaced whole when the next one starts (`Hop.replacing(with:)`):
//
//   request      the task's current request (`URLSessionTask.currentRequest`)
//   outgoing     the request as written for the network: cookies and the session's default fields added
//                (`CookieHopPolicy.prepare`); the URL cache's key, and what `Vary` is judged against
//   transmitted  what the transport is given, when the cache changed `outgoing` (a conditional request, a
//                request asking intermediaries to revalidate)
//   source       where the response comes from: the network (through `proxy`), a URL protocol's load, or the
//                URL cache
//   response     the response head (3xx, 401, 407 and 304 included), when it came (`respondedAt`)
//   validating / served / storing   the cache's part (`CacheHopPolicy`)
//   next         the request replacing this hop once its last event came (a redirect followed, …)
//   decisions    what each policy decided about the hop (`HopPolicy`), for tests and tracing
//
// The per-task facts the policies keep across hops (redirects followed, the challenge being answered, the
// proxy's answer, the wait for a route) are in `TaskPolicyState`. Both live in one box (`HopRoute`) in the
// task's `TaskTransfer`, under the task's lock; a policy walk takes the box out of the lock and puts it back
// (`URLSessionTask+HopPolicies.swift`).

/// One request a task sends, and what came of it.
struct Hop {
    /// Why the hop was sent.
    enum Reason: Equatable, Sendable {
        /// The task's first request.
        case first
        /// A 3xx the task follows (it counts towards `RedirectPolicy.maxRedirects`).
        case redirect
        /// A 401 answered with a credential.
        case authentication
        /// A 407 answered with a credential.
        case proxyAuthentication
        /// A 304 that did not match the stored response: the request goes again, without conditions and
        /// past the URL protocols and the cache.
        case unconditional
        /// A route came back while the task was waiting for one.
        case routeRetry
        /// The delegate gave a new request when the earliest begin date came.
        case delayedBegin
    }

    /// Where the hop's response comes from.
    enum Source {
        /// The transport, unless the hop has not been prepared yet.
        case network
        /// A URL protocol's load (`URLSessionTask+Protocol.swift`).
        case urlProtocol(ProtocolLoad)
        /// The URL cache, without the network.
        case cache(CachedURLResponse)
    }

    // No initialiser of its own: `Hop(request:)` is the memberwise one, which builds the hop where it goes (an
    // initialiser assigning `request` built it on the stack and copied it out, retaining and releasing each
    // reference it holds, some 640 instructions of every task).

    /// 0 for the first request, one more for each hop after it.
    var number = 0
    var reason = Reason.first
    var request: URLRequest?
    var outgoing: URLRequest?
    var transmitted: URLRequest?
    var source = Source.network
    /// The proxy the hop went through, as the transport was given it.
    var proxy: ProxyServer?
    /// When the hop was sent (a transaction's fetch start).
    var sentAt: Date?
    var response: HTTPURLResponse?
    var respondedAt: Date?
    /// The stored response the hop's conditional request validates.
    var validating: CachedURLResponse?
    /// The stored response a 304 refreshed: its body goes out at the end of the hop.
    var served: CachedURLResponse?
    /// Where the body to store is, while the response may be stored and fits the cache.
    var storing = KeptBody.none
    /// The request that replaces this hop: the rest of its events are dropped, and it is sent when it ends.
    var next: NextHop?
    var decisions = HopDecisions()

    /// The hop that follows this one with `next`.
    func replacing(with next: NextHop) -> Hop {
        var hop = Hop(request: next.request)
        hop.number = number + 1
        hop.reason = next.reason
        return hop
    }

    /// The URL protocol load of the hop, when a URL protocol took it.
    var protocolLoad: ProtocolLoad? {
        if case .urlProtocol(let load) = source { load } else { nil }
    }

    /// Lets go of every body the hop holds (the copy kept for storing, a refreshed stored response).
    mutating func dropBodies() {
        storing = .none
        served = nil
        validating = nil
        if case .cache = source { source = .network }
    }
}

/// A request that replaces the current hop, and why.
struct NextHop {
    var request: URLRequest
    var reason: Hop.Reason
}

/// Where the body of a response that may be stored is kept until the proposal is made.
enum KeptBody {
    /// Nowhere: the response is not stored (or outgrew the cache).
    case none
    /// In the sink, which collects it anyway (`ResponseSink.collectedBody(of:)`).
    case inSink
    /// A copy the task keeps, for a sink that does not collect the body (dropped past the cache's capacity).
    case copy(BodyCollector)
}

/// What each policy decided about a hop, the latest decision of each (4 bits per policy, no allocation).
struct HopDecisions: Equatable, Sendable {
    private var bits: UInt32 = 0

    /// The latest decision `policy` took about the hop; nil when it took none.
    subscript(policy: HopPolicy) -> HopDecision.Kind? {
        get {
            let value = (bits >> (UInt32(policy.rawValue) * 4)) & 0xF
            return value == 0 ? nil : HopDecision.Kind(rawValue: UInt8(value - 1))
        }
        set {
            let shift = UInt32(policy.rawValue) * 4
            bits &= ~(0xF << shift)
            if let newValue { bits |= (UInt32(newValue.rawValue) + 1) << shift }
        }
    }
}

// MARK: - TaskPolicyState

/// What the policies keep across a task's hops, one field per policy that keeps something.
struct TaskPolicyState {
    /// Redirects followed so far (`RedirectHopPolicy`).
    var redirectCount = 0
    /// The challenge the task answered, while it is answering one (`AuthenticationHopPolicy`).
    var authentication: TaskAuthentication?
    /// The proxy challenge the task answered, while it is answering one (`ProxyAuthenticationHopPolicy`).
    var proxyAuthentication: TaskAuthentication?
    /// The answer to a proxy's challenge, given to the transport with that proxy for the task's requests.
    var proxyAuthorization: ProxyAuthorization?
    /// Waiting for a route after a connection failed for want of one (`ConnectivityHopPolicy`).
    var connectivity = ConnectivityWait()
}
