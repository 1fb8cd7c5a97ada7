// CacheFreshnessTests.swift
//
// CacheFreshness: one row per source of the freshness lifetime (RFC 9111 §4.2.1, §4.2.2) and one per term
// of the current-age calculation (§4.2.3). All times are offsets in seconds from a fixed epoch.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct CacheFreshnessTests {
    typealias Source = CacheFreshness.LifetimeSource

    // MARK: Freshness lifetime

    struct LifetimeCase: Sendable, CustomTestStringConvertible {
        var rule: String
        var status = 200
        var fields: [(String, String)]
        var lifetime: TimeInterval
        var source: Source
        var testDescription: String { rule }
    }

    static let date = ("Date", CacheFixtures.httpDate(0))

    static let lifetimeCases: [LifetimeCase] = [
        LifetimeCase(rule: "max-age", fields: [date, ("Cache-Control", "max-age=100")], lifetime: 100, source: .maxAge),
        LifetimeCase(rule: "max-age beats Expires",
                     fields: [date, ("Expires", CacheFixtures.httpDate(50)), ("Cache-Control", "max-age=100")],
                     lifetime: 100, source: .maxAge),
        LifetimeCase(rule: "invalid max-age is stale", fields: [date, ("Cache-Control", "max-age=soon")],
                     lifetime: 0, source: .maxAge),
        LifetimeCase(rule: "s-maxage is for shared caches", fields: [date, ("Cache-Control", "s-maxage=100")],
                     lifetime: 0, source: .none),
        LifetimeCase(rule: "Expires minus Date", fields: [date, ("Expires", CacheFixtures.httpDate(3600))],
                     lifetime: 3600, source: .expires),
        LifetimeCase(rule: "Expires minus response time without Date",
                     fields: [("Expires", CacheFixtures.httpDate(3600))], lifetime: 3590, source: .expires),
        LifetimeCase(rule: "Expires before Date", fields: [date, ("Expires", CacheFixtures.httpDate(-10))],
                     lifetime: 0, source: .expires),
        LifetimeCase(rule: "invalid Expires is already expired", fields: [date, ("Expires", "0")],
                     lifetime: 0, source: .expires),
        LifetimeCase(rule: "heuristic: 10% of Date minus Last-Modified",
                     fields: [date, ("Last-Modified", CacheFixtures.httpDate(-1000))], lifetime: 100,
                     source: .heuristic),
        LifetimeCase(rule: "heuristic capped at one day",
                     fields: [date, ("Last-Modified", CacheFixtures.httpDate(-100 * 86_400))], lifetime: 86_400,
                     source: .heuristic),
        LifetimeCase(rule: "heuristic for 404", status: 404,
                     fields: [date, ("Last-Modified", CacheFixtures.httpDate(-1000))], lifetime: 100,
                     source: .heuristic),
        LifetimeCase(rule: "no heuristic for 302", status: 302,
                     fields: [date, ("Last-Modified", CacheFixtures.httpDate(-1000))], lifetime: 0, source: .none),
        LifetimeCase(rule: "heuristic for 302 marked public", status: 302,
                     fields: [date, ("Last-Modified", CacheFixtures.httpDate(-1000)), ("Cache-Control", "public")],
                     lifetime: 100, source: .heuristic),
        LifetimeCase(rule: "Last-Modified after Date", fields: [date, ("Last-Modified", CacheFixtures.httpDate(10))],
                     lifetime: 0, source: .none),
        LifetimeCase(rule: "no information", fields: [date], lifetime: 0, source: .none),
    ]

    @Test(arguments: lifetimeCases)
    func lifetimeComesFromTheFirstApplicableSource(_ testCase: LifetimeCase) {
        let response = CacheFixtures.response(status: testCase.status, testCase.fields)
        let (lifetime, source) = CacheFreshness.lifetime(of: response, responseDate: CacheFixtures.date(10))
        #expect(lifetime == testCase.lifetime)
        #expect(source == testCase.source)
    }

    // MARK: Current age

    struct AgeCase: Sendable, CustomTestStringConvertible {
        var rule: String
        var fields: [(String, String)]
        var requestTime: TimeInterval = 0
        var responseTime: TimeInterval = 0
        var now: TimeInterval
        var age: TimeInterval
        var testDescription: String { rule }
    }

    static let ageCases: [AgeCase] = [
        AgeCase(rule: "resident time only", fields: [date], now: 30, age: 30),
        AgeCase(rule: "Age field", fields: [date, ("Age", "100")], now: 30, age: 130),
        AgeCase(rule: "apparent age from Date", fields: [("Date", CacheFixtures.httpDate(-50))], now: 30, age: 80),
        AgeCase(rule: "apparent age wins over a smaller Age",
                fields: [("Date", CacheFixtures.httpDate(-50)), ("Age", "10")], now: 0, age: 50),
        AgeCase(rule: "Age wins over a smaller apparent age",
                fields: [("Date", CacheFixtures.httpDate(-50)), ("Age", "100")], now: 0, age: 100),
        AgeCase(rule: "response delay corrects Age", fields: [date, ("Age", "10")], requestTime: -5, now: 0,
                age: 15),
        AgeCase(rule: "Date in the future gives no negative apparent age",
                fields: [("Date", CacheFixtures.httpDate(500))], now: 0, age: 0),
        AgeCase(rule: "invalid Age is ignored", fields: [date, ("Age", "old")], now: 7, age: 7),
        AgeCase(rule: "first member of a list Age", fields: [date, ("Age", "30, 40")], now: 0, age: 30),
        AgeCase(rule: "no Date: apparent age 0", fields: [], requestTime: 20, responseTime: 20, now: 25,
                age: 5),
        AgeCase(rule: "clock before the response: no resident time", fields: [date], responseTime: 10, now: 0,
                age: 10),
    ]

    @Test(arguments: ageCases)
    func currentAgeFollowsSection423(_ testCase: AgeCase) {
        let age = CacheFreshness.currentAge(
            of: CacheFixtures.response(testCase.fields),
            requestDate: CacheFixtures.date(testCase.requestTime),
            responseDate: CacheFixtures.date(testCase.responseTime),
            now: CacheFixtures.date(testCase.now)
        )
        #expect(age == testCase.age)
    }

    // MARK: Fresh or stale

    @Test(arguments: [(99.0, true), (100.0, false), (150.0, false)])
    func freshWhileTheLifetimeExceedsTheAge(now: TimeInterval, isFresh: Bool) {
        let response = CacheFixtures.response([Self.date, ("Cache-Control", "max-age=100")])
        let freshness = CacheFreshness(response: response, requestDate: CacheFixtures.epoch,
                                       responseDate: CacheFixtures.epoch, now: CacheFixtures.date(now))
        #expect(freshness.lifetime == 100)
        #expect(freshness.lifetimeSource == .maxAge)
        #expect(freshness.currentAge == now)
        #expect(freshness.isFresh == isFresh)
    }
}
