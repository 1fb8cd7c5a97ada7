// CachePolicyDecisionTests.swift
//
// CachePolicyDecision: every cache policy against a fresh entry, a stale one, a stale one without
// validators and none; then, under `.useProtocolCachePolicy`, one row per request directive and per rule
// that makes an entry unusable (RFC 9111 §4, §5.2.1). The stored response is dated at the epoch with
// `max-age=100`; "now" is an offset from the epoch.

import Foundation
import Testing
@testable import FWURLSession
import TestSupport

@Suite struct CachePolicyDecisionTests {
    /// The kind of a decision.
    enum Outcome: String, Sendable {
        case useStored, validate, load, fail
    }

    /// The entry a row starts from.
    enum Entry: Sendable {
        /// Nothing is cached.
        case absent
        /// A response with these fields, stored by this cache with these Vary values (or made by the user).
        case stored([(String, String)], varying: [VaryingField]? = [], madeByUser: Bool = false)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var rule: String
        var policy = URLRequest.CachePolicy.useProtocolCachePolicy
        var configurationPolicy = URLRequest.CachePolicy.useProtocolCachePolicy
        var method = "GET"
        var requestFields: [(String, String)] = []
        var entry: Entry
        var now: TimeInterval
        var outcome: Outcome
        var testDescription: String { rule }
    }

    static let validated: [(String, String)] = [("Date", CacheFixtures.httpDate(0)),
                                                 ("Cache-Control", "max-age=100"), ("ETag", "\"v1\"")]
    static let unvalidated: [(String, String)] = [("Date", CacheFixtures.httpDate(0)),
                                                   ("Cache-Control", "max-age=100")]
    static let fresh = 10.0
    static let stale = 200.0

    // MARK: Policies

    static func policyRows(_ policy: URLRequest.CachePolicy,
                           _ outcomes: (Outcome, Outcome, Outcome, Outcome)) -> [Row] {
        [
            Row(rule: "\(policy) fresh", policy: policy, entry: .stored(validated), now: fresh, outcome: outcomes.0),
            Row(rule: "\(policy) stale", policy: policy, entry: .stored(validated), now: stale, outcome: outcomes.1),
            Row(rule: "\(policy) stale without validator", policy: policy, entry: .stored(unvalidated), now: stale,
                outcome: outcomes.2),
            Row(rule: "\(policy) absent", policy: policy, entry: .absent, now: fresh, outcome: outcomes.3),
        ]
    }

    static let policyMatrix: [Row] = [
        policyRows(.useProtocolCachePolicy, (.useStored, .validate, .load, .load)),
        policyRows(.reloadIgnoringLocalCacheData, (.load, .load, .load, .load)),
        policyRows(.reloadIgnoringLocalAndRemoteCacheData, (.load, .load, .load, .load)),
        policyRows(.returnCacheDataElseLoad, (.useStored, .useStored, .useStored, .load)),
        policyRows(.returnCacheDataDontLoad, (.useStored, .useStored, .useStored, .fail)),
        policyRows(.reloadRevalidatingCacheData, (.validate, .validate, .load, .load)),
    ].flatMap { $0 }

    @Test(arguments: policyMatrix)
    func everyPolicyAgainstEveryEntry(_ row: Row) {
        #expect(Self.outcome(of: Self.decide(row)) == row.outcome)
    }

    // MARK: Request directives and unusable entries

    static let directiveRows: [Row] = [
        Row(rule: "no-cache validates a fresh entry", requestFields: [("Cache-Control", "no-cache")],
            entry: .stored(validated), now: fresh, outcome: .validate),
        Row(rule: "Pragma: no-cache validates", requestFields: [("Pragma", "no-cache")],
            entry: .stored(validated), now: fresh, outcome: .validate),
        Row(rule: "no-cache without validator loads", requestFields: [("Cache-Control", "no-cache")],
            entry: .stored(unvalidated), now: fresh, outcome: .load),
        Row(rule: "no-store bypasses a fresh entry", requestFields: [("Cache-Control", "no-store")],
            entry: .stored(validated), now: fresh, outcome: .load),
        Row(rule: "max-age=0 validates", requestFields: [("Cache-Control", "max-age=0")],
            entry: .stored(validated), now: fresh, outcome: .validate),
        Row(rule: "max-age below the age validates", requestFields: [("Cache-Control", "max-age=5")],
            entry: .stored(validated), now: fresh, outcome: .validate),
        Row(rule: "max-age above the age uses", requestFields: [("Cache-Control", "max-age=50")],
            entry: .stored(validated), now: fresh, outcome: .useStored),
        Row(rule: "max-stale without value uses any stale entry", requestFields: [("Cache-Control", "max-stale")],
            entry: .stored(validated), now: 1_000_000, outcome: .useStored),
        Row(rule: "max-stale covering the staleness uses", requestFields: [("Cache-Control", "max-stale=150")],
            entry: .stored(validated), now: stale, outcome: .useStored),
        Row(rule: "max-stale short of the staleness validates", requestFields: [("Cache-Control", "max-stale=50")],
            entry: .stored(validated), now: stale, outcome: .validate),
        Row(rule: "must-revalidate overrides max-stale", requestFields: [("Cache-Control", "max-stale")],
            entry: .stored(validated + [("Cache-Control", "must-revalidate")]), now: stale, outcome: .validate),
        Row(rule: "min-fresh beyond the remaining freshness validates",
            requestFields: [("Cache-Control", "min-fresh=95")], entry: .stored(validated), now: fresh,
            outcome: .validate),
        Row(rule: "min-fresh within the remaining freshness uses", requestFields: [("Cache-Control", "min-fresh=50")],
            entry: .stored(validated), now: fresh, outcome: .useStored),
        Row(rule: "only-if-cached uses a fresh entry", requestFields: [("Cache-Control", "only-if-cached")],
            entry: .stored(validated), now: fresh, outcome: .useStored),
        Row(rule: "only-if-cached fails on a stale entry", requestFields: [("Cache-Control", "only-if-cached")],
            entry: .stored(validated), now: stale, outcome: .fail),
        Row(rule: "only-if-cached fails without entry", requestFields: [("Cache-Control", "only-if-cached")],
            entry: .absent, now: fresh, outcome: .fail),
        Row(rule: "only-if-cached with no-cache fails",
            requestFields: [("Cache-Control", "only-if-cached, no-cache")], entry: .stored(validated), now: fresh,
            outcome: .fail),
        Row(rule: "response no-cache validates a fresh entry",
            entry: .stored(validated + [("Cache-Control", "no-cache")]), now: fresh, outcome: .validate),
        Row(rule: "the caller's own conditions go to the network", requestFields: [("If-None-Match", "\"v0\"")],
            entry: .stored(validated), now: fresh, outcome: .load),
        Row(rule: "a Range request goes to the network", requestFields: [("Range", "bytes=0-1")],
            entry: .stored(validated), now: fresh, outcome: .load),
        Row(rule: "Vary mismatch is no entry", requestFields: [("Accept-Encoding", "br")],
            entry: .stored(validated + [("Vary", "Accept-Encoding")],
                           varying: [VaryingField(name: "accept-encoding", value: "gzip")]),
            now: fresh, outcome: .load),
        Row(rule: "Vary match uses", requestFields: [("Accept-Encoding", "gzip")],
            entry: .stored(validated + [("Vary", "Accept-Encoding")],
                           varying: [VaryingField(name: "accept-encoding", value: "gzip")]),
            now: fresh, outcome: .useStored),
        Row(rule: "Vary mismatch offline fails", policy: .returnCacheDataDontLoad,
            requestFields: [("Accept-Encoding", "br")],
            entry: .stored(validated + [("Vary", "Accept-Encoding")],
                           varying: [VaryingField(name: "accept-encoding", value: "gzip")]),
            now: fresh, outcome: .fail),
        Row(rule: "Vary: * never matches", entry: .stored(validated + [("Vary", "*")]), now: fresh, outcome: .load),
        Row(rule: "POST never uses the cache", method: "POST", entry: .stored(validated), now: fresh, outcome: .load),
        Row(rule: "a response made by the user ages from its Date (fresh)",
            entry: .stored(validated, varying: nil, madeByUser: true), now: fresh, outcome: .useStored),
        Row(rule: "a response made by the user ages from its Date (stale)",
            entry: .stored(validated, varying: nil, madeByUser: true), now: stale, outcome: .validate),
        Row(rule: "the configuration's policy applies to a protocol-policy request",
            configurationPolicy: .returnCacheDataDontLoad, entry: .absent, now: fresh, outcome: .fail),
        Row(rule: "the request's own policy wins over the configuration's", policy: .reloadIgnoringLocalCacheData,
            configurationPolicy: .returnCacheDataElseLoad, entry: .stored(validated), now: fresh, outcome: .load),
    ]

    @Test(arguments: directiveRows)
    func requestDirectivesAndUnusableEntries(_ row: Row) {
        #expect(Self.outcome(of: Self.decide(row)) == row.outcome)
    }

    // MARK: What the outcomes carry

    @Test func validationSendsTheValidatorsAndKeepsTheRequest() throws {
        let lastModified = CacheFixtures.httpDate(-3600)
        let stored = CacheFixtures.cached(CacheFixtures.response(Self.validated + [("Last-Modified", lastModified)]))
        let request = CacheFixtures.request([("Accept", "*/*")])
        let decision = CachePolicyDecision.decide(request: request, configurationPolicy: .useProtocolCachePolicy,
                                                  now: CacheFixtures.date(Self.stale)) { stored }
        guard case .validate(let candidate, let conditional) = decision else {
            Issue.record("expected validation, got \(decision)")
            return
        }
        #expect(candidate === stored)
        #expect(conditional.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        #expect(conditional.value(forHTTPHeaderField: "If-Modified-Since") == lastModified)
        #expect(conditional.value(forHTTPHeaderField: "Accept") == "*/*")
    }

    @Test func usingTheStoredResponseHandsBackTheEntry() {
        let stored = CacheFixtures.cached(CacheFixtures.response(Self.validated))
        let decision = CachePolicyDecision.decide(request: CacheFixtures.request(),
                                                  configurationPolicy: .useProtocolCachePolicy,
                                                  now: CacheFixtures.date(Self.fresh)) { stored }
        #expect(decision == .useStored(stored))
    }

    @Test func reloadingPastIntermediariesAsksThemToValidate() throws {
        for (fields, cacheControl) in [([], "no-cache"), ([("Cache-Control", "max-age=0")], "max-age=0")] {
            let request = CacheFixtures.request(fields, policy: .reloadIgnoringLocalAndRemoteCacheData)
            let decision = CachePolicyDecision.decide(request: request, configurationPolicy: .useProtocolCachePolicy,
                                                      now: CacheFixtures.epoch) { nil }
            guard case .load(let sent) = decision else {
                Issue.record("expected a load, got \(decision)")
                continue
            }
            #expect(sent.value(forHTTPHeaderField: "Cache-Control") == cacheControl)
            #expect(sent.value(forHTTPHeaderField: "Pragma") == "no-cache")
        }
    }

    @Test func offlineFailureIsResourceUnavailable() {
        let request = CacheFixtures.request(policy: .returnCacheDataDontLoad)
        let decision = CachePolicyDecision.decide(request: request, configurationPolicy: .useProtocolCachePolicy,
                                                  now: CacheFixtures.epoch) { nil }
        guard case .fail(let error) = decision else {
            Issue.record("expected a failure, got \(decision)")
            return
        }
        #expect(error.code == .resourceUnavailable)
        #expect(error.failingURL == request.url)
    }

    // MARK: Lookup

    static let noLookupRows: [Row] = [
        Row(rule: "reloadIgnoringLocalCacheData", policy: .reloadIgnoringLocalCacheData, entry: .absent, now: 0,
            outcome: .load),
        Row(rule: "reloadIgnoringLocalAndRemoteCacheData", policy: .reloadIgnoringLocalAndRemoteCacheData,
            entry: .absent, now: 0, outcome: .load),
        Row(rule: "POST", method: "POST", entry: .absent, now: 0, outcome: .load),
        Row(rule: "POST offline", policy: .returnCacheDataDontLoad, method: "POST", entry: .absent, now: 0,
            outcome: .fail),
        Row(rule: "no-store", requestFields: [("Cache-Control", "no-store")], entry: .absent, now: 0, outcome: .load),
        Row(rule: "own conditions", requestFields: [("If-Modified-Since", CacheFixtures.httpDate(0))],
            entry: .absent, now: 0, outcome: .load),
    ]

    @Test(arguments: noLookupRows)
    func theCacheIsNotReadWhenTheDecisionCannotUseIt(_ row: Row) {
        let lookups = LockedBox(0)
        let request = CacheFixtures.request(method: row.method, row.requestFields, policy: row.policy)
        let decision = CachePolicyDecision.decide(request: request, configurationPolicy: row.configurationPolicy,
                                                  now: CacheFixtures.epoch) {
            lookups.withLock { $0 += 1 }
            return CacheFixtures.cached(CacheFixtures.response(Self.validated))
        }
        #expect(Self.outcome(of: decision) == row.outcome)
        #expect(lookups.withLock { $0 } == 0)
    }

    // MARK: No cache

    /// Without a cache every row decides as it would with nothing stored, and the load sends the same fields.
    @Test(arguments: policyMatrix + directiveRows + noLookupRows)
    func withoutACacheTheDecisionIsTheOneWithNothingStored(_ row: Row) {
        let request = CacheFixtures.request(method: row.method, row.requestFields, policy: row.policy)
        let now = CacheFixtures.date(row.now)
        let expected = CachePolicyDecision.decide(request: request, configurationPolicy: row.configurationPolicy,
                                                  now: now) { nil }
        let decided = CachePolicyDecision.decideWithoutCache(request: request,
                                                             configurationPolicy: row.configurationPolicy, now: now)
        #expect(Self.outcome(of: decided) == Self.outcome(of: expected))
        if case .load(let sent) = decided, case .load(let wanted) = expected {
            #expect(sent.allHTTPHeaderFields == wanted.allHTTPHeaderFields)
        }
    }

    // MARK: Helpers

    static func decide(_ row: Row) -> CachePolicyDecision {
        let request = CacheFixtures.request(method: row.method, row.requestFields, policy: row.policy)
        var cached: CachedURLResponse?
        if case .stored(let fields, let varying, let madeByUser) = row.entry {
            let response = CacheFixtures.response(fields)
            cached = madeByUser
                ? CachedURLResponse(response: response, data: Data("body".utf8))
                : CacheFixtures.cached(response, varyingFields: varying)
        }
        return CachePolicyDecision.decide(request: request, configurationPolicy: row.configurationPolicy,
                                          now: CacheFixtures.date(row.now)) { cached }
    }

    static func outcome(of decision: CachePolicyDecision) -> Outcome {
        switch decision {
        case .useStored: .useStored
        case .validate: .validate
        case .load: .load
        case .fail: .fail
        }
    }
}
