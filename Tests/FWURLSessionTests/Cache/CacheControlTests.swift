// CacheControlTests.swift
//
// CacheControl: one row per reading rule of RFC 9111 §5.2 and §1.2.2 (case, quoting, first occurrence,
// invalid and overflowing delta-seconds, valueless max-stale, qualified forms, unknown directives), and
// the request's Pragma fallback.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct CacheControlTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var field: String?
        var expected: CacheControl
        var testDescription: String { field.map { "\"\($0)\"" } ?? "nil" }
    }

    static func directives(_ change: (inout CacheControl) -> Void) -> CacheControl {
        var directives = CacheControl(fieldValue: nil)
        change(&directives)
        return directives
    }

    static let cases: [Case] = [
        Case(field: nil, expected: directives { _ in }),
        Case(field: "", expected: directives { _ in }),
        Case(field: "max-age=60", expected: directives { $0.maxAge = 60 }),
        Case(field: "MAX-AGE=60", expected: directives { $0.maxAge = 60 }),
        Case(field: "max-age=\"60\"", expected: directives { $0.maxAge = 60 }),
        Case(field: "max-age = 60", expected: directives { $0.maxAge = 60 }),
        Case(field: "max-age=abc", expected: directives { $0.maxAge = 0 }),
        Case(field: "max-age=-1", expected: directives { $0.maxAge = 0 }),
        Case(field: "max-age", expected: directives { $0.maxAge = 0 }),
        Case(field: "max-age=10, max-age=20", expected: directives { $0.maxAge = 10 }),
        Case(field: "max-age=99999999999999999999", expected: directives { $0.maxAge = 2_147_483_648 }),
        Case(field: "max-stale", expected: directives { $0.maxStale = Int.max }),
        Case(field: "max-stale=30", expected: directives { $0.maxStale = 30 }),
        Case(field: "max-stale=x", expected: directives { _ in }),
        Case(field: "min-fresh=5", expected: directives { $0.minFresh = 5 }),
        Case(field: "min-fresh=soon", expected: directives { _ in }),
        Case(field: "s-maxage=5", expected: directives { $0.hasSharedMaxAge = true }),
        Case(field: "no-cache", expected: directives { $0.noCache = true }),
        Case(field: "no-cache=\"Set-Cookie\"", expected: directives { $0.noCache = true }),
        Case(field: "no-store", expected: directives { $0.noStore = true }),
        Case(field: "only-if-cached", expected: directives { $0.onlyIfCached = true }),
        Case(field: "must-revalidate", expected: directives { $0.mustRevalidate = true }),
        Case(field: "public", expected: directives { $0.isPublic = true }),
        Case(field: "private=\"Set-Cookie, X-Token\", max-age=5", expected: directives {
            $0.isPrivate = true
            $0.maxAge = 5
        }),
        Case(field: " , ,max-age=1,, ", expected: directives { $0.maxAge = 1 }),
        Case(field: "community=\"UCI\", proxy-revalidate, immutable", expected: directives { _ in }),
        Case(field: "public, max-age=300, must-revalidate", expected: directives {
            $0.isPublic = true
            $0.maxAge = 300
            $0.mustRevalidate = true
        }),
    ]

    @Test(arguments: cases)
    func parsesTheDirectives(_ testCase: Case) {
        #expect(CacheControl(fieldValue: testCase.field) == testCase.expected)
    }

    @Test func responseFieldsOnSeveralLinesAreOneList() {
        let response = CacheFixtures.response([("Cache-Control", "max-age=5"), ("Cache-Control", "no-cache")])
        #expect(CacheControl(response: response) == Self.directives {
            $0.maxAge = 5
            $0.noCache = true
        })
    }

    // MARK: Pragma

    struct PragmaCase: Sendable, CustomTestStringConvertible {
        var fields: [String]
        var noCache: Bool
        var testDescription: String { fields.joined(separator: " | ") }
    }

    static let pragmaCases: [PragmaCase] = [
        PragmaCase(fields: ["Pragma: no-cache"], noCache: true),
        PragmaCase(fields: ["Pragma: NO-CACHE, x"], noCache: true),
        PragmaCase(fields: ["Pragma: x"], noCache: false),
        PragmaCase(fields: ["Pragma: no-cache", "Cache-Control: max-age=5"], noCache: false),
        PragmaCase(fields: [], noCache: false),
    ]

    @Test(arguments: pragmaCases)
    func requestPragmaNoCacheCountsOnlyWithoutCacheControl(_ testCase: PragmaCase) {
        let fields = testCase.fields.map { field -> (String, String) in
            let parts = field.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return (parts[0], parts[1])
        }
        #expect(CacheControl(request: CacheFixtures.request(fields)).noCache == testCase.noCache)
    }
}
