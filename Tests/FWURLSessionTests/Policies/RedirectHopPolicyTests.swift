import Foundation
@testable import FWURLSession
import Testing

// Policy 6 without a server: which responses ask to be followed, the limit, and what the answer decides.
@Suite struct RedirectHopPolicyTests {
    private static let url = "http://a.test/x"

    @Test(arguments: [
        (302, [("Location", "/y")], 0, "ask(redirect http://a.test/y)"),
        (307, [("Location", "http://b.test/z")], 15, "ask(redirect http://b.test/z)"),
        (302, [("Location", "/y")], 16, "fail(-1007)"),
        (302, [], 0, "continue"),
        (200, [("Location", "/y")], 0, "continue"),
        (304, [("Location", "/y")], 0, "continue"),
    ])
    func decide(_ status: Int, _ fields: [(String, String)], _ followed: Int, _ expected: String) {
        var state = TaskPolicyState()
        state.redirectCount = followed
        let hop = Hop(request: HopFixtures.request(Self.url))
        let decision = RedirectHopPolicy.decide(hop, HopFixtures.response(Self.url, status: status, fields), state)
        #expect(decision.summary == expected)
    }

    @Test func aURLProtocolsRedirectIsOfferedTheSameWay() {
        var state = TaskPolicyState()
        let response = HopFixtures.response(Self.url, status: 301)
        let next = HopFixtures.request("http://a.test/p")
        #expect(RedirectHopPolicy.offer(next, response: response, state).summary == "ask(redirect http://a.test/p)")
        state.redirectCount = RedirectPolicy.maxRedirects
        #expect(RedirectHopPolicy.offer(next, response: response, state).summary == "fail(-1007)")
    }

    @Test func theAnswerFollowsOrKeepsThe3xx() {
        #expect(RedirectHopPolicy.resolve(HopFixtures.request("http://a.test/y")).summary
            == "replace(redirect GET http://a.test/y)")
        #expect(RedirectHopPolicy.resolve(nil).summary == "continue")
    }

    @Test(arguments: [
        (Hop.Reason.redirect, 1), (.authentication, 0), (.proxyAuthentication, 0), (.unconditional, 0),
        (.routeRetry, 0),
    ])
    func onlyARedirectCounts(_ reason: Hop.Reason, _ counted: Int) {
        var state = TaskPolicyState()
        RedirectHopPolicy.replaced(by: NextHop(request: HopFixtures.request(Self.url), reason: reason), &state)
        #expect(state.redirectCount == counted)
    }
}
