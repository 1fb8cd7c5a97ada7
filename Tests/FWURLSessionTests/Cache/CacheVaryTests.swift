// CacheVaryTests.swift
//
// CacheVary: which fields a response varies on, what a storing request records, and when a later request
// matches (RFC 9111 §4.1): same values after list normalisation, absent equals absent, `*` never.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct CacheVaryTests {
    // MARK: Field names

    @Test(arguments: [
        ("", [String]?.some([])),
        ("Accept-Encoding", ["accept-encoding"]),
        ("Accept-Encoding, ACCEPT-encoding , Accept-Language", ["accept-encoding", "accept-language"]),
        ("*", nil),
        ("Accept, *", nil),
    ] as [(String, [String]?)])
    func fieldNamesAreLowerCasedAndUnique(vary: String, names: [String]?) {
        let response = CacheFixtures.response(vary.isEmpty ? [] : [("Vary", vary)])
        #expect(CacheVary.fieldNames(of: response) == names)
    }

    @Test func theStoringRequestsValuesAreRecorded() {
        let response = CacheFixtures.response([("Vary", "Accept-Encoding, Accept-Language")])
        let request = CacheFixtures.request([("accept-encoding", "gzip ,  br")])
        #expect(CacheVary.varyingFields(of: request, for: response) == [
            VaryingField(name: "accept-encoding", value: "gzip,br"),
            VaryingField(name: "accept-language", value: nil),
        ])
        #expect(CacheVary.varyingFields(of: request, for: CacheFixtures.response([("Vary", "*")])) == nil)
    }

    // MARK: Matching

    struct MatchCase: Sendable, CustomTestStringConvertible {
        var rule: String
        var vary: String
        var stored: [VaryingField]?
        var requestFields: [(String, String)]
        var matches: Bool
        var testDescription: String { rule }
    }

    static let matchCases: [MatchCase] = [
        MatchCase(rule: "same value", vary: "Accept-Encoding",
                  stored: [VaryingField(name: "accept-encoding", value: "gzip")],
                  requestFields: [("Accept-Encoding", "gzip")], matches: true),
        MatchCase(rule: "other value", vary: "Accept-Encoding",
                  stored: [VaryingField(name: "accept-encoding", value: "gzip")],
                  requestFields: [("Accept-Encoding", "br")], matches: false),
        MatchCase(rule: "list whitespace is normalised", vary: "Accept-Encoding",
                  stored: [VaryingField(name: "accept-encoding", value: "gzip,br")],
                  requestFields: [("Accept-Encoding", "gzip,   br")], matches: true),
        MatchCase(rule: "absent in both", vary: "Accept-Language",
                  stored: [VaryingField(name: "accept-language", value: nil)], requestFields: [], matches: true),
        MatchCase(rule: "absent when stored, present now", vary: "Accept-Language",
                  stored: [VaryingField(name: "accept-language", value: nil)],
                  requestFields: [("Accept-Language", "fr")], matches: false),
        MatchCase(rule: "present when stored, absent now", vary: "Accept-Language",
                  stored: [VaryingField(name: "accept-language", value: "fr")], requestFields: [], matches: false),
        MatchCase(rule: "every named field must match", vary: "A, B",
                  stored: [VaryingField(name: "a", value: "1"), VaryingField(name: "b", value: "2")],
                  requestFields: [("A", "1"), ("B", "3")], matches: false),
        MatchCase(rule: "star never matches", vary: "*", stored: [], requestFields: [], matches: false),
        MatchCase(rule: "not stored by this cache: unchecked", vary: "Accept", stored: nil,
                  requestFields: [("Accept", "x")], matches: true),
        MatchCase(rule: "not stored by this cache, star", vary: "*", stored: nil, requestFields: [], matches: false),
    ]

    @Test(arguments: matchCases)
    func matchingComparesTheRecordedFields(_ testCase: MatchCase) {
        let response = CacheFixtures.response([("Vary", testCase.vary)])
        let request = CacheFixtures.request(testCase.requestFields)
        #expect(CacheVary.matches(request, response: response, storedFields: testCase.stored) == testCase.matches)
    }
}
