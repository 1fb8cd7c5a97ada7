// String+HTTPFieldNameTests.swift
//
// ASCII case-insensitive comparison of HTTP tokens.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct HTTPFieldNameTests {
    // MARK: Cases

    struct Case: Sendable, CustomTestStringConvertible {
        var lhs: String
        var rhs: String
        var equal: Bool
        var testDescription: String { "\(lhs.debugDescription) vs \(rhs.debugDescription)" }
    }

    static let cases: [Case] = [
        Case(lhs: "Content-Type", rhs: "content-type", equal: true),
        Case(lhs: "CONTENT-TYPE", rhs: "content-type", equal: true),
        Case(lhs: "", rhs: "", equal: true),
        Case(lhs: "a", rhs: "", equal: false),
        Case(lhs: "Content-Type", rhs: "Content-Typ", equal: false),
        Case(lhs: "X-1", rhs: "x-1", equal: true),
        Case(lhs: "a[", rhs: "A{", equal: false),
        Case(lhs: "@", rhs: "`", equal: false),
        Case(lhs: "é", rhs: "É", equal: false),
        Case(lhs: "é", rhs: "é", equal: true),
    ]

    // MARK: Tests

    @Test(arguments: cases)
    func comparesIgnoringASCIICaseOnly(_ testCase: Case) {
        #expect(testCase.lhs.isEqualIgnoringASCIICase(testCase.rhs) == testCase.equal)
        #expect(testCase.rhs.isEqualIgnoringASCIICase(testCase.lhs) == testCase.equal)
    }

    @Test func worksOnSubstrings() {
        let text = "xxHOSTyy"
        let host = text.dropFirst(2).dropLast(2)
        #expect(host.isEqualIgnoringASCIICase("host"))
        #expect(!host.isEqualIgnoringASCIICase("hostyy"))
    }
}
