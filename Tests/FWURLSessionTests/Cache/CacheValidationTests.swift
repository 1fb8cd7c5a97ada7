// CacheValidationTests.swift
//
// CacheValidation: the conditional request made from a stored response's validators (RFC 9111 §4.3.1),
// which 304s select the stored response (§4.3.4), and the refresh (§3.2): fields replaced except those the
// stored body depends on, status and body kept, exchange times renewed.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct CacheValidationTests {
    // MARK: Conditional request

    struct ConditionCase: Sendable, CustomTestStringConvertible {
        var rule: String
        var fields: [(String, String)]
        var ifNoneMatch: String?
        var ifModifiedSince: String?
        var testDescription: String { rule }
    }

    static let lastModified = CacheFixtures.httpDate(-3600)

    static let conditionCases: [ConditionCase] = [
        ConditionCase(rule: "ETag", fields: [("ETag", "\"v1\"")], ifNoneMatch: "\"v1\""),
        ConditionCase(rule: "weak ETag", fields: [("ETag", "W/\"v1\"")], ifNoneMatch: "W/\"v1\""),
        ConditionCase(rule: "Last-Modified verbatim", fields: [("Last-Modified", lastModified)],
                      ifModifiedSince: lastModified),
        ConditionCase(rule: "both", fields: [("ETag", "\"v1\""), ("Last-Modified", lastModified)],
                      ifNoneMatch: "\"v1\"", ifModifiedSince: lastModified),
    ]

    @Test(arguments: conditionCases)
    func conditionsComeFromTheValidators(_ testCase: ConditionCase) throws {
        let request = CacheFixtures.request([("Accept", "text/plain")])
        let conditional = try #require(CacheValidation.conditionalRequest(
            request, validating: CacheFixtures.response(testCase.fields)))
        #expect(conditional.value(forHTTPHeaderField: "If-None-Match") == testCase.ifNoneMatch)
        #expect(conditional.value(forHTTPHeaderField: "If-Modified-Since") == testCase.ifModifiedSince)
        #expect(conditional.value(forHTTPHeaderField: "Accept") == "text/plain")
        #expect(conditional.url == request.url)
    }

    @Test func noValidatorNoConditionalRequest() {
        let response = CacheFixtures.response([("Date", CacheFixtures.httpDate(0))])
        #expect(CacheValidation.conditionalRequest(CacheFixtures.request(), validating: response) == nil)
    }

    // MARK: Selection

    @Test(arguments: [
        (nil, "\"v1\"", true),
        (nil, nil, true),
        ("\"v1\"", "\"v1\"", true),
        ("\"v2\"", "\"v1\"", false),
        ("\"v1\"", nil, false),
        // The weak comparison: nginx weakens the tag of a gzipped body and validates with the strong one.
        ("\"v1\"", "W/\"v1\"", true),
        ("W/\"v1\"", "\"v1\"", true),
        ("W/\"v1\"", "W/\"v1\"", true),
        ("W/\"v2\"", "W/\"v1\"", false),
    ] as [(String?, String?, Bool)])
    func a304SelectsTheStoredResponseItsValidatorsMatch(newTag: String?, storedTag: String?, selects: Bool) {
        let notModified = CacheFixtures.response(status: 304, newTag.map { [("ETag", $0)] } ?? [])
        let stored = CacheFixtures.response(storedTag.map { [("ETag", $0)] } ?? [])
        #expect(CacheValidation.selects(notModified, stored: stored) == selects)
    }

    // MARK: Refresh

    @Test func a304RefreshesTheFieldsButNotStatusBodyOrTheFieldsTheBodyDependsOn() throws {
        let stored = CacheFixtures.response([
            ("Date", CacheFixtures.httpDate(-100)),
            ("Content-Type", "text/plain"),
            ("Content-Length", "4"),
            ("Content-Encoding", "gzip"),
            ("Cache-Control", "max-age=10"),
            ("ETag", "\"v1\""),
            ("X-Old", "kept"),
        ])
        let notModified = CacheFixtures.response(status: 304, [
            ("Date", CacheFixtures.httpDate(0)),
            ("Cache-Control", "max-age=60"),
            ("Content-Length", "0"),
            ("Content-Encoding", "br"),
            ("Connection", "close, X-Hop"),
            ("X-Hop", "1"),
            ("ETag", "\"v1\""),
            ("X-New", "added"),
        ])
        let cached = CacheFixtures.cached(stored, requestOffset: -101, responseOffset: -100)
        let refreshed = try #require(CacheValidation.refreshed(cached, by: notModified,
                                                               requestDate: CacheFixtures.date(-1),
                                                               responseDate: CacheFixtures.epoch))
        let response = try #require(refreshed.response as? HTTPURLResponse)
        #expect(response.statusCode == 200)
        #expect(refreshed.data == cached.data)
        #expect(response.url == stored.url)
        #expect(response.orderedHeaderFields.map { "\($0.name): \($0.value)" } == [
            "Content-Type: text/plain",
            "Content-Length: 4",
            "Content-Encoding: gzip",
            "X-Old: kept",
            "Date: \(CacheFixtures.httpDate(0))",
            "Cache-Control: max-age=60",
            "ETag: \"v1\"",
            "X-New: added",
        ])
        #expect(refreshed.cacheInfo == CacheEntryInfo(requestDate: CacheFixtures.date(-1),
                                                      responseDate: CacheFixtures.epoch))
        #expect(refreshed.storagePolicy == cached.storagePolicy)
    }

    @Test func aStoredErrorStatusStaysItsStatus() throws {
        let cached = CacheFixtures.cached(CacheFixtures.response(status: 404, [("ETag", "\"x\"")]))
        let refreshed = try #require(CacheValidation.refreshed(
            cached, by: CacheFixtures.response(status: 304), requestDate: CacheFixtures.epoch,
            responseDate: CacheFixtures.epoch))
        #expect((refreshed.response as? HTTPURLResponse)?.statusCode == 404)
    }

    @Test func a304ThatSelectsNothingRefreshesNothing() {
        let cached = CacheFixtures.cached(CacheFixtures.response([("ETag", "\"v1\"")]))
        let notModified = CacheFixtures.response(status: 304, [("ETag", "\"v2\"")])
        #expect(CacheValidation.refreshed(cached, by: notModified, requestDate: CacheFixtures.epoch,
                                          responseDate: CacheFixtures.epoch) == nil)
    }

    // MARK: Entity tags

    @Test(arguments: [
        ("\"abc\"", false, "\"abc\""),
        ("W/\"abc\"", true, "\"abc\""),
        (" \"\" ", false, "\"\""),
    ] as [(String, Bool, String)])
    func entityTagsParse(field: String, isWeak: Bool, opaqueTag: String) throws {
        let tag = try #require(EntityTag(field))
        #expect(tag.isWeak == isWeak)
        #expect(tag.opaqueTag == opaqueTag)
    }

    @Test(arguments: ["abc", "W/abc", "\"", "W/"])
    func unquotedTagsAreNotEntityTags(_ field: String) {
        #expect(EntityTag(field) == nil)
    }
}
