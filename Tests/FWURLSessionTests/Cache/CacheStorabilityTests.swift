// CacheStorabilityTests.swift
//
// CacheStorability: one row per storage rule of RFC 9111 §3 (method, status, no-store, Authorization,
// Vary: *, freshness information), and the proposal the session offers to willCacheResponse (what is
// stripped, what is kept, when there is none).

import Foundation
import Testing
@testable import FWURLSession

@Suite struct CacheStorabilityTests {
    typealias Verdict = CacheStorability.Verdict

    struct Case: Sendable, CustomTestStringConvertible {
        var rule: String
        var method = "GET"
        var requestFields: [(String, String)] = []
        var status = 200
        var fields: [(String, String)] = []
        var verdict: Verdict
        var testDescription: String { rule }
    }

    static let cases: [Case] = [
        Case(rule: "200 is heuristically cacheable", verdict: .storable),
        Case(rule: "404 is heuristically cacheable", status: 404, verdict: .storable),
        Case(rule: "POST is not stored", method: "POST", fields: [("Cache-Control", "max-age=60")],
             verdict: .methodNotCacheable),
        Case(rule: "HEAD is not stored", method: "HEAD", verdict: .methodNotCacheable),
        Case(rule: "interim status", status: 100, verdict: .statusNotStorable),
        Case(rule: "partial content", status: 206, fields: [("Cache-Control", "max-age=60")],
             verdict: .statusNotStorable),
        Case(rule: "304", status: 304, verdict: .statusNotStorable),
        Case(rule: "response no-store", fields: [("Cache-Control", "max-age=60, no-store")], verdict: .noStore),
        Case(rule: "request no-store", requestFields: [("Cache-Control", "no-store")], verdict: .noStore),
        Case(rule: "no-cache is stored", fields: [("Cache-Control", "no-cache")], verdict: .storable),
        Case(rule: "private is stored by a private cache", status: 302, fields: [("Cache-Control", "private")],
             verdict: .storable),
        Case(rule: "Authorization without permission", requestFields: [("Authorization", "Basic eDp5")],
             fields: [("Cache-Control", "max-age=60")], verdict: .authorizationNotAllowed),
        Case(rule: "Authorization with public", requestFields: [("Authorization", "Basic eDp5")],
             fields: [("Cache-Control", "public")], verdict: .storable),
        Case(rule: "Authorization with must-revalidate", requestFields: [("Authorization", "Basic eDp5")],
             fields: [("Cache-Control", "must-revalidate, max-age=60")], verdict: .storable),
        Case(rule: "Authorization with s-maxage", requestFields: [("Authorization", "Basic eDp5")],
             fields: [("Cache-Control", "s-maxage=60")], verdict: .storable),
        Case(rule: "Vary: * is never usable", fields: [("Vary", "Accept, *")], verdict: .variesOnEverything),
        Case(rule: "Vary on named fields is stored", fields: [("Vary", "Accept-Encoding")], verdict: .storable),
        Case(rule: "302 with max-age", status: 302, fields: [("Cache-Control", "max-age=60")], verdict: .storable),
        Case(rule: "500 with Expires", status: 500, fields: [("Expires", CacheFixtures.httpDate(60))],
             verdict: .storable),
        Case(rule: "500 with public", status: 500, fields: [("Cache-Control", "public")], verdict: .storable),
        Case(rule: "302 without freshness information", status: 302, verdict: .noFreshnessInformation),
        Case(rule: "500 without freshness information", status: 500, verdict: .noFreshnessInformation),
    ]

    @Test(arguments: cases)
    func verdictFollowsSection3(_ testCase: Case) {
        let request = CacheFixtures.request(method: testCase.method, testCase.requestFields)
        let response = CacheFixtures.response(status: testCase.status, testCase.fields)
        #expect(CacheStorability.verdict(request: request, response: response) == testCase.verdict)
    }

    // MARK: Proposal

    @Test func proposalCarriesTheExchangeAndStripsConnectionFields() throws {
        let response = CacheFixtures.response([
            ("Content-Type", "text/plain"),
            ("Connection", "keep-alive, X-Hop"),
            ("Keep-Alive", "timeout=5"),
            ("Transfer-Encoding", "chunked"),
            ("X-Hop", "1"),
            ("Proxy-Authenticate", "Basic"),
            ("ETag", "\"v1\""),
        ])
        let proposal = try #require(CacheStorability.proposal(
            request: CacheFixtures.request(), response: response, data: Data("body".utf8),
            requestDate: CacheFixtures.date(-2), responseDate: CacheFixtures.date(-1)))
        let stored = try #require(proposal.response as? HTTPURLResponse)
        #expect(stored.orderedHeaderFields.map(\.name) == ["Content-Type", "ETag"])
        #expect(stored.statusCode == 200)
        #expect(proposal.data == Data("body".utf8))
        #expect(proposal.storagePolicy == .allowed)
        #expect(proposal.cacheInfo == CacheEntryInfo(requestDate: CacheFixtures.date(-2),
                                                     responseDate: CacheFixtures.date(-1)))
    }

    @Test func proposalKeepsTheResponseWhenNothingIsStripped() throws {
        let response = CacheFixtures.response([("Cache-Control", "max-age=60")])
        let proposal = try #require(CacheStorability.proposal(
            request: CacheFixtures.request(), response: response, data: Data(),
            requestDate: CacheFixtures.epoch, responseDate: CacheFixtures.epoch))
        #expect(proposal.response === response)
    }

    @Test func noProposalForWhatMayNotBeStored() {
        let response = CacheFixtures.response([("Cache-Control", "no-store")])
        #expect(CacheStorability.proposal(request: CacheFixtures.request(), response: response, data: Data(),
                                          requestDate: CacheFixtures.epoch, responseDate: CacheFixtures.epoch) == nil)
    }
}
