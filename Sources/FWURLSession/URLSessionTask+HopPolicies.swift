import Foundation
import FWNetworkMonitor
import FWTransport

// MARK: - Walking the policies, and executing what they decide
//
// The task asks its session's services about each hop in the order `HopPolicies.standard` writes down
// (`Task/Policies/HopPolicy.swift`) and executes what they decide; no service is called anywhere else:
//
//   send()          the prepare walk: a URL protocol's load starts, a stored response is served, the task
//                   fails, or the outgoing request goes to the transport (`transmit`)
//   receivedHead    the response walk (delegate queue): every observe, then decide
//   finishCachedOrStored   the end walk: the cache's proposal (`URLSessionTask+Cache.swift`)
//   hopFailed       the failure walk: a tunnel's 407, waiting for a route
//
// What a decision does depends on where the hop is (`HopStage`): a hop whose response head arrived goes on
// until its last event (a replaced hop then sends its successor: `endReplacedHop`); one that ended or failed
// is replaced at once. A question holds delivery (`DeliveryQueue.Hold`) until it is answered; the delegate
// may answer on any thread, later, so the answer comes back to the delegate queue (`addOperation`) and goes
// to the policy that asked (`resolve`): its `continue` lets the policies after it decide.
//
// Walks run on the hop and the policy state taken out of the task's lock in their box (policies touch
// storages and the disk: `Task/HopRoute.swift`), and put back after (`walkPolicies`). Walks run one at a
// time — on the delegate queue, or in `resume()`/a route retry for a hop nothing else runs yet — so nothing
// else changes them meanwhile.

/// Where the hop was when a policy decided.
enum HopStage: Sendable {
    /// Its response head arrived; its events go on.
    case response(HTTPURLResponse)
    /// Its URL protocol's load ended with this redirect.
    case protocolRedirect(HTTPURLResponse)
    /// Its transport failed: the task fails with this error unless a policy decides otherwise.
    case failure(URLError)
    /// It ended successfully: the task completes.
    case ended
}

extension URLSessionTask {
    /// What the policies read besides the hop.
    var hopContext: HopContext {
        HopContext(configuration: session.sessionConfiguration, sinkCollectsBody: sink.collectsBody,
                   now: session.clock.date())
    }

    /// Runs `walk` over the hop and the policy state taken out of the lock in their box (`HopRoute`), and
    /// puts them back. While the walk runs, the task's transfer answers with the hop's request, which is all a
    /// reader on another thread looks at (`currentRequest`).
    func walkPolicies<Result>(_ walk: (inout Hop, inout TaskPolicyState) -> Result) -> Result {
        guard let route = withTransfer({ $0.takeRoute() }) else {
            // Another walk holds the box (walks run one at a time, so this is not expected): walk on copies
            // whose changes are dropped, as a change made through the transfer meanwhile is.
            var (hop, policies) = withTransfer { ($0.hop, $0.policies) }
            return walk(&hop, &policies)
        }
        let result = walk(&route.hop.pointee, &route.policies.pointee)
        withTransfer { $0.putBack(route) }
        return result
    }

    // MARK: Walks

    /// Sends the current hop (the first, or the next after a redirect, an answered challenge or a route
    /// retry): prepared by the policies, then to its URL protocol, from the cache, or to the transport.
    final func send() {
        // What the rest needs of the prepared hop, not the hop: a copy of it retained and released each of its
        // references.
        let (decision, load, outgoing, transmitted, protocolClass) = walkPolicies { hop, policies in
            var context = HopContext(configuration: session.sessionConfiguration, now: session.clock.date())
            context.requestTemplate = session.requestTemplate
            if hop.reason != .unconditional { context.protocolClass = session.protocolClass(for: self) }
            let decision = HopPolicies.prepare(&hop, policies, context)
            return (decision, hop.protocolLoad, hop.outgoing, hop.transmitted, context.protocolClass)
        }
        if let load, let protocolClass {
            return startProtocolLoad(load, protocolClass: protocolClass)
        }
        switch decision?.1 {
        case .serve(let cached)?:
            serveFromCache(cached, for: outgoing)
        case .fail(let error)?:
            enqueue(.fail(error))
        default:
            guard let request = transmitted ?? outgoing else {
                return enqueue(.fail(URLError(.unsupportedURL, url: nil, description: "the task has no request")))
            }
            transmit(request)
        }
    }

    /// The hop's response head arrived (delegate queue): the response walk. `traced`: the hop is traced (its
    /// trace delegate hears the head's bytes; an untraced hop does not ask, which took the task's lock).
    func receivedHead(_ head: HTTPResponseHead, traced: Bool) {
        if traced { DelegateRouter.didReceiveResponseHead(task: self, head.wireBytes) }
        let context = hopContext
        let walked = walkPolicies { hop, policies -> (HTTPURLResponse, (HopPolicy, HopDecision)?)? in
            guard let url = hop.request?.url else { return nil }
            let response = HTTPURLResponse(url: url, head: head)
            hop.response = response
            return (response, HopPolicies.respond(to: response, &hop, &policies, context))
        }
        guard let (response, outcome) = walked else { return }
        execute(outcome, stage: .response(response))
    }

    /// The hop's transport failed (delegate queue): the failure walk.
    func hopFailed(_ error: TransportError) {
        let (outcome, mapped) = walkFailure(error)
        if retryDurably(after: mapped, decision: outcome?.1) { return } // a durable download (Background/)
        execute(outcome, stage: .failure(mapped))
    }

    /// What the policies decide about the transport's failure `error`, and the `URLError` it stands for.
    func walkFailure(_ error: TransportError) -> ((HopPolicy, HopDecision)?, URLError) {
        let context = hopContext
        return walkPolicies { hop, policies in
            let mapped = URLError(error, url: hop.request?.url)
            let outcome = HopPolicies.fail(&hop, error, mapped: mapped, &policies, context) {
                (try? NetworkMonitor.shared.get())?.hasUsableInterface()
            }
            return (outcome, mapped)
        }
    }

    // MARK: Executing decisions

    /// Executes `outcome` (nil: every policy went on) for a hop at `stage`.
    func execute(_ outcome: (HopPolicy, HopDecision)?, stage: HopStage) {
        guard let (policy, decision) = outcome else { return conclude(stage) }
        switch decision {
        case .continue:
            conclude(stage)
        case .replace(let next):
            withTransfer { $0.hop.next = next }
            if case .response = stage { return } // sent once the hop's last event came (`endReplacedHop`)
            sendNextHop()
        case .serve(let stored):
            deliverResponse(stored.response)
        case .ask(let question):
            ask(question, by: policy, stage: stage)
        case .fail(let error):
            switch stage {
            case .response, .protocolRedirect: abort(with: error)
            case .failure, .ended: finish(error: error)
            }
        case .cancelTask:
            cancel()
            // A failed hop has ended already: nothing else would complete the task.
            if case .failure = stage {
                finish(error: URLError(.cancelled, url: currentRequest?.url, description: "cancelled"))
            }
        case .waitForRoute(let otherwise):
            if !waitForConnectivity() { finish(error: otherwise) }
        }
    }

    /// Every policy let the hop be: its response is the task's, or its end or failure the task's.
    private func conclude(_ stage: HopStage) {
        switch stage {
        case .response(let response):
            deliverResponse(response)
        case .protocolRedirect(let response):
            // The redirect response is the response; the task completes once it is delivered.
            deliverResponse(response)
            enqueue(.cached(.end))
        case .failure(let error):
            finish(error: error)
        case .ended:
            finish(error: nil)
        }
    }

    /// Asks `question` for `policy`, holding delivery until the answer is resolved.
    private func ask(_ question: HopQuestion, by policy: HopPolicy, stage: HopStage) {
        switch question {
        case .redirect(let next, let response):
            hold(.awaitingRedirectDecision)
            let asked = DelegateRouter.willPerformHTTPRedirection(task: self, response: response, newRequest: next) {
                chosen in
                // The delegate may answer on any thread, later: decide on the delegate queue.
                self.session.onDelegateQueue {
                    self.resolve(question, .redirect(chosen), by: policy, stage: stage)
                    self.release(.awaitingRedirectDecision)
                }
            }
            if !asked {
                resolve(question, .redirect(next), by: policy, stage: stage)
                release(.awaitingRedirectDecision)
            }
        case .challenge(let challenge):
            hold(.awaitingAuthentication)
            let sender = URLSessionAuthenticationChallengeSender(task: self) { disposition, credential in
                self.session.onDelegateQueue {
                    self.resolve(question, .challenge(disposition, credential), by: policy, stage: stage)
                }
            }
            let raised = URLAuthenticationChallenge(protectionSpace: challenge.space,
                                                    proposedCredential: challenge.proposed,
                                                    previousFailureCount: challenge.failures,
                                                    failureResponse: challenge.response, error: challenge.error,
                                                    sender: sender)
            DelegateRouter.didReceive(raised, task: self, answer: sender.answer)
        case .willCache(let proposal, _):
            hold(.awaitingCacheDecision)
            sink.willCache(proposal, for: self) { chosen in
                self.session.onDelegateQueue {
                    self.resolve(question, .willCache(chosen), by: policy, stage: stage)
                    self.release(.awaitingCacheDecision)
                }
            }
        }
    }

    /// Hands `answer` to the policy that asked (delegate queue) and executes what it decides. What it
    /// decides is in place before delivery goes on, so no event of the hop slips past it.
    private func resolve(_ question: HopQuestion, _ answer: HopAnswer, by policy: HopPolicy, stage: HopStage) {
        let context = hopContext
        let outcome = walkPolicies { hop, policies -> (HopPolicy, HopDecision)? in
            let decision = policy.resolve(question, answer, &hop, &policies, context)
            hop.decisions[policy] = decision.kind
            guard case .continue = decision else { return (policy, decision) }
            guard case .response(let response) = stage else { return nil }
            return HopPolicies.decide(response, after: policy, &hop, &policies, context)
        }
        execute(outcome, stage: stage)
        // A new challenge holds delivery again under the same hold: only the last answer lifts it.
        guard case .challenge = question else { return }
        if case (_, .ask(.challenge))? = outcome { return }
        release(.awaitingAuthentication)
    }

    // MARK: Replaced hops

    /// The replaced hop ended: send the next request. A hop that was cancelled or timed out ends the task
    /// instead; one that merely lost the rest of its body is replaced.
    func endReplacedHop(_ event: TransportEvent) {
        if case .failed(let error) = event, error.isCancelled || error.isTimedOut || error.isShutDown {
            finish(error: URLError(error, url: currentRequest?.url))
            return
        }
        sendNextHop()
    }

    /// Sends the request that replaces the current hop (`Hop.next`) as a new hop. A redirect that turned the
    /// method into GET drops the upload body.
    func sendNextHop() {
        let replaced = withTransfer { state -> (NextHop, hop: Int, status: Int?, traced: Bool)? in
            guard let next = state.hop.next else { return nil }
            if (next.request.httpMethod ?? "GET") != (state.hop.request?.httpMethod ?? "GET") { state.upload = nil }
            RedirectHopPolicy.replaced(by: next, &state.policies)
            let replaced = (next, hop: state.hop.number, status: state.hop.response?.statusCode,
                            traced: state.trace.enabled)
            state.hop = state.hop.replacing(with: next)
            return replaced
        }
        guard let replaced else { return }
        if replaced.traced { traceNextHop(replaced.0, replaced: replaced.hop, replacedStatus: replaced.status) }
        send()
    }
}
