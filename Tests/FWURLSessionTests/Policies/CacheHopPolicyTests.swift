import Foundation
@testable import FWURLSession
import Testing

// Policy 3 with an in-memory URL cache and no server: what a hop's outgoing request is served, validated or
// loaded with; what a response invalidates, refreshes or starts keeping; what the end of a hop proposes.
@Suite struct CacheHopPolicyTests {
    private static let url = "http://a.test/c"

    /// A configuration whose cache holds `fields` (with an ETag) as the response to GET `url`.
    private static func configuration(storing fields: [(String, String)]?) -> URLSessionConfiguration {
        let configuration = HopFixtures.configuration(cookies: false)
        if let fields {
            let response = HopFixtures.response(url, fields + [("ETag", "\"v1\"")])
            let stored = CachedURLResponse(response: response, data: Data("stored".utf8))
            configuration.urlCache?.storeCachedResponse(stored, for: HopFixtures.request(url))
        }
        return configuration
    }

    private static func prepared(_ configuration: URLSessionConfiguration, reason: Hop.Reason = .first,
                                 policy: URLRequest.CachePolicy = .useProtocolCachePolicy) -> (HopDecision, Hop) {
        var request = HopFixtures.request(url)
        request.cachePolicy = policy
        var hop = HopFixtures.hop(request, configuration)
        hop.reason = reason
        return (CacheHopPolicy.prepare(&hop, HopFixtures.context(configuration)), hop)
    }

    // MARK: Before sending

    @Test func nothingStoredLoads() {
        let (decision, hop) = Self.prepared(Self.configuration(storing: nil))
        #expect(decision.summary == "continue")
        #expect(hop.transmitted == hop.outgoing)
        #expect(hop.validating == nil)
    }

    @Test func nothingStoredAndNoLoadingFails() {
        let (decision, _) = Self.prepared(Self.configuration(storing: nil), policy: .returnCacheDataDontLoad)
        #expect(decision.summary == "fail(-1008)")
        let (withoutCache, _) = Self.prepared(HopFixtures.configuration(cache: false), policy: .returnCacheDataDontLoad)
        #expect(withoutCache.summary == "fail(-1008)")
    }

    @Test func aFreshStoredResponseIsServed() {
        let (decision, hop) = Self.prepared(Self.configuration(storing: [("Cache-Control", "max-age=600")]))
        #expect(decision.summary == "serve(200)")
        guard case .cache = hop.source else {
            Issue.record("the hop's source is \(hop.source)")
            return
        }
    }

    @Test func aStaleStoredResponseIsValidated() {
        let (decision, hop) = Self.prepared(Self.configuration(storing: [("Cache-Control", "max-age=0")]))
        #expect(decision.summary == "continue")
        #expect(hop.validating != nil)
        #expect(hop.transmitted?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
    }

    @Test func aHopSentWithoutConditionsSkipsTheCache() {
        let (decision, hop) = Self.prepared(Self.configuration(storing: [("Cache-Control", "max-age=600")]),
                                            reason: .unconditional)
        #expect(decision.summary == "continue")
        #expect(hop.transmitted == nil)
    }

    // MARK: The response

    @Test func anUnsafeMethodInvalidates() {
        let configuration = Self.configuration(storing: [("Cache-Control", "max-age=600")])
        let hop = HopFixtures.hop(HopFixtures.request(Self.url, method: "POST"), configuration)
        CacheHopPolicy.observe(hop, HopFixtures.response(Self.url), configuration)
        #expect(configuration.urlCache?.cachedResponse(for: HopFixtures.request(Self.url)) == nil)
    }

    @Test(arguments: [
        ([("Cache-Control", "max-age=60")], false, "copy"), ([("Cache-Control", "max-age=60")], true, "inSink"),
        ([("Cache-Control", "no-store")], false, "none"),
    ])
    func aStorableResponseKeepsItsBody(_ fields: [(String, String)], _ collects: Bool, _ expected: String) {
        let configuration = Self.configuration(storing: nil)
        var hop = HopFixtures.hop(HopFixtures.request(Self.url), configuration)
        let decision = CacheHopPolicy.decide(&hop, HopFixtures.response(Self.url, fields),
                                             HopFixtures.context(configuration, collects: collects))
        #expect(decision.summary == "continue")
        let kept = switch hop.storing {
        case .none: "none"
        case .inSink: "inSink"
        case .copy: "copy"
        }
        #expect(kept == expected)
        #expect((hop.respondedAt != nil) == (expected != "none"))
    }

    @Test(arguments: [("\"v1\"", "serve(200)"), ("\"v2\"", "replace(unconditional GET http://a.test/c)")])
    func a304ServesTheRefreshedResponseOrSendsAgain(_ etag: String, _ expected: String) throws {
        let configuration = Self.configuration(storing: [("Cache-Control", "max-age=0")])
        var (_, hop) = Self.prepared(configuration)
        let decision = CacheHopPolicy.decide(&hop, HopFixtures.response(Self.url, status: 304, [("ETag", etag)]),
                                             HopFixtures.context(configuration))
        #expect(decision.summary == expected)
        #expect((hop.served != nil) == expected.hasPrefix("serve"))
        if case .serve(let served) = decision { #expect(served.data == Data("stored".utf8)) }
    }

    // MARK: The end

    @Test(arguments: [("copy", "ask(willCache 200)"), ("inSink", "ask(willCache 200)"),
                      ("inSinkNothing", "continue"), ("none", "continue")])
    func theEndProposesWhatWasKept(_ kept: String, _ expected: String) {
        let configuration = Self.configuration(storing: nil)
        var hop = HopFixtures.hop(HopFixtures.request(Self.url), configuration)
        _ = CacheHopPolicy.decide(&hop, HopFixtures.response(Self.url, [("Cache-Control", "max-age=60")]),
                                  HopFixtures.context(configuration))
        hop.response = HopFixtures.response(Self.url, [("Cache-Control", "max-age=60")])
        switch kept {
        case "copy":
            var copy = BodyCollector(.store(ceiling: 1024), limits: configuration.httpResponseLimits, url: nil)
            try? copy.append(Data("body".utf8))
            hop.storing = .copy(copy)
        case "none": hop.storing = .none
        default: hop.storing = .inSink
        }
        let collected = kept == "inSink" ? Data("body".utf8) : nil
        let decision = CacheHopPolicy.ended(&hop, collectedBody: { collected }, configuration)
        #expect(decision.summary == expected)
        guard case .none = hop.storing else {
            Issue.record("the hop still keeps its body")
            return
        }
    }

    @Test func theAnswerIsStored() throws {
        let configuration = Self.configuration(storing: nil)
        let request = HopFixtures.request(Self.url)
        let chosen = CachedURLResponse(response: HopFixtures.response(Self.url, [("Cache-Control", "max-age=60")]),
                                       data: Data("chosen".utf8))
        #expect(CacheHopPolicy.resolve(nil, request: request, configuration).summary == "continue")
        #expect(configuration.urlCache?.cachedResponse(for: request) == nil)
        #expect(CacheHopPolicy.resolve(chosen, request: request, configuration).summary == "continue")
        #expect(configuration.urlCache?.cachedResponse(for: request)?.data == Data("chosen".utf8))
    }
}
