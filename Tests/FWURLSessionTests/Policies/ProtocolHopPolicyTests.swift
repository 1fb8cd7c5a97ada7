import Foundation
@testable import FWURLSession
import Testing

// Policy 1 without a load: a class that takes the hop makes it its load with its canonical request, and the
// prepare walk skips every later policy; a hop sent without conditions is not offered.
@Suite struct ProtocolHopPolicyTests {
    private static let url = "http://a.test/p"

    @Test func aClassThatTakesTheHopMakesItItsLoad() throws {
        let configuration = HopFixtures.configuration()
        var hop = Hop(request: HopFixtures.request(Self.url))
        var context = HopFixtures.context(configuration)
        context.protocolClass = CanonicalisingProtocol.self
        let outcome = HopPolicies.prepare(&hop, TaskPolicyState(), context)
        #expect(outcome.summary == "deliver")
        let load = try #require(hop.protocolLoad)
        #expect(load.request.value(forHTTPHeaderField: "X-Canonical") == "yes")
        #expect(hop.request?.value(forHTTPHeaderField: "X-Canonical") == "yes")
        // No cookies, no cache: the rest of the walk was skipped.
        #expect(hop.outgoing == nil)
        #expect(hop.decisions[.urlProtocol] == .continue)
        #expect(hop.decisions[.cookies] == nil)
    }

    @Test(arguments: [Hop.Reason.unconditional, .first])
    func withoutAClassOrUnconditionallyTheHopStaysOnTheNetwork(_ reason: Hop.Reason) {
        var hop = Hop(request: HopFixtures.request(Self.url))
        hop.reason = reason
        var context = HopFixtures.context(HopFixtures.configuration())
        if reason == .unconditional { context.protocolClass = CanonicalisingProtocol.self }
        #expect(ProtocolHopPolicy.prepare(&hop, context).summary == "continue")
        #expect(hop.protocolLoad == nil)
        #expect(hop.request?.value(forHTTPHeaderField: "X-Canonical") == nil)
    }

    @Test(arguments: [
        (URLRequest.CachePolicy.useProtocolCachePolicy, true), (.returnCacheDataElseLoad, true),
        (.reloadIgnoringLocalCacheData, false), (.reloadIgnoringLocalAndRemoteCacheData, false),
    ])
    func theInstanceGetsTheStoredResponseUnlessThePolicyIgnoresIt(_ policy: URLRequest.CachePolicy, _ given: Bool) {
        let configuration = HopFixtures.configuration()
        var request = HopFixtures.request(Self.url)
        configuration.urlCache?.storeCachedResponse(
            CachedURLResponse(response: HopFixtures.response(Self.url, [("Cache-Control", "max-age=60")]),
                              data: Data("s".utf8)), for: request)
        request.cachePolicy = policy
        #expect((ProtocolHopPolicy.cachedResponse(for: request, configuration) != nil) == given)
    }
}
