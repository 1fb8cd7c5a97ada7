import Foundation
@testable import FWURLSession
import Testing

// The order of the policies and the walks over them: one fixed, documented order; a response walk runs
// every observe, then decide in order up to the first decision other than continue.
@Suite struct HopPolicyTests {
    @Test func theStandardOrderIsTheDocumentedOne() {
        #expect(HopPolicies.standard == [
            .urlProtocol, .cookies, .cache, .authentication, .proxyAuthentication, .redirect, .connectivity,
        ])
        #expect(Set(HopPolicies.standard) == Set(HopPolicy.allCases))
        // Walks step by raw value: the raw values count up along the documented order.
        #expect(HopPolicies.standard.map(\.rawValue) == Array(0..<UInt8(HopPolicies.standard.count)))
        var walked: [HopPolicy] = []
        var next = HopPolicies.policy(after: nil)
        while let policy = next {
            walked.append(policy)
            next = HopPolicies.policy(after: policy)
        }
        #expect(walked == HopPolicies.standard)
    }

    @Test func decisionsAreKeptPerPolicy() {
        var decisions = HopDecisions()
        for policy in HopPolicy.allCases { #expect(decisions[policy] == nil) }
        decisions[.cache] = .serve
        decisions[.redirect] = .ask
        decisions[.cookies] = .continue
        #expect(decisions[.cache] == .serve)
        #expect(decisions[.redirect] == .ask)
        #expect(decisions[.cookies] == .continue)
        #expect(decisions[.authentication] == nil)
        decisions[.cache] = nil
        #expect(decisions[.cache] == nil)
        #expect(decisions[.redirect] == .ask)
    }

    @Test func aPlainGetGoesToTheNetworkAsWritten() throws {
        let configuration = HopFixtures.configuration(cookies: false, cache: false)
        var hop = Hop(request: HopFixtures.request("http://a.test/x"))
        let outcome = HopPolicies.prepare(&hop, TaskPolicyState(), HopFixtures.context(configuration))
        #expect(outcome.summary == "deliver")
        let outgoing = try #require(hop.outgoing)
        #expect(outgoing.value(forHTTPHeaderField: "Accept") == "*/*")
        #expect(outgoing.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(hop.transmitted == outgoing)
        #expect(hop.sentAt != nil)
        #expect(hop.protocolLoad == nil)
        for policy in HopPolicies.standard { #expect(hop.decisions[policy] == .continue) }
    }

    @Test func aPlainResponseIsDeliveredAndEveryPolicyWentOn() {
        let configuration = HopFixtures.configuration()
        var hop = HopFixtures.hop(HopFixtures.request("http://a.test/x"), configuration)
        var state = TaskPolicyState()
        let outcome = HopPolicies.respond(to: HopFixtures.response("http://a.test/x"), &hop, &state,
                                          HopFixtures.context(configuration))
        #expect(outcome.summary == "deliver")
    }

    @Test(arguments: [
        (302, [("Location", "/y")], "redirect: ask(redirect http://a.test/y)"),
        (401, [("WWW-Authenticate", "Basic realm=\"r\"")],
         "authentication: ask(challenge Basic r failures=0 proposed=-)"),
        (401, [("WWW-Authenticate", "Bearer")], "deliver"),
        (200, [("Location", "/y")], "deliver"),
    ])
    func everyObserveRunsThenTheFirstDecisionStopsTheWalk(_ status: Int, _ fields: [(String, String)],
                                                          _ expected: String) throws {
        let configuration = HopFixtures.configuration()
        var hop = HopFixtures.hop(HopFixtures.request("http://a.test/x"), configuration)
        var state = TaskPolicyState()
        let response = HopFixtures.response("http://a.test/x", status: status, fields + [("Set-Cookie", "s=1")])
        let outcome = HopPolicies.respond(to: response, &hop, &state, HopFixtures.context(configuration))
        #expect(outcome.summary == expected)
        // The cookie policy observed the response whatever was decided after it.
        let storage = try #require(configuration.httpCookieStorage)
        #expect(storage.cookieFieldValue(for: URL(string: "http://a.test/x")!) == "s=1")
        if let (policy, _) = outcome {
            for later in HopPolicies.standard where later.rawValue > policy.rawValue {
                #expect(hop.decisions[later] == nil)
            }
        }
    }

    @Test func aResolvedContinueLetsThePoliciesAfterItDecide() {
        let configuration = HopFixtures.configuration()
        var hop = HopFixtures.hop(HopFixtures.request("http://a.test/x"), configuration)
        var state = TaskPolicyState()
        let response = HopFixtures.response("http://a.test/x", status: 401, [("WWW-Authenticate", "Basic realm=\"r\"")])
        let context = HopFixtures.context(configuration)
        #expect(HopPolicies.decide(response, after: .authentication, &hop, &state, context).summary == "deliver")
        #expect(HopPolicies.decide(response, after: nil, &hop, &state, context).summary
            == "authentication: ask(challenge Basic r failures=0 proposed=-)")
    }
}
