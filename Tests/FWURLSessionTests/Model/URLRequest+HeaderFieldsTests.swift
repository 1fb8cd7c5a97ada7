// URLRequest+HeaderFieldsTests.swift
//
// Header fields of URLRequest: case-insensitive lookup, order and spelling kept for the wire,
// FoundationNetworking's dictionary view, addValue joining and value validation.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct URLRequestHeaderFieldsTests {
    let url = URL(string: "http://example.com/")!

    func names(_ request: URLRequest) -> [String] {
        request.orderedHeaderFields.map(\.name)
    }

    func values(_ request: URLRequest) -> [String] {
        request.orderedHeaderFields.map(\.value)
    }

    // MARK: Lookup

    @Test(arguments: ["content-type", "Content-Type", "CONTENT-TYPE", "cOnTeNt-TyPe"])
    func lookupIsCaseInsensitive(_ spelling: String) {
        var request = URLRequest(url: url)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        #expect(request.value(forHTTPHeaderField: spelling) == "text/plain")
    }

    @Test func missingFieldIsNil() {
        var request = URLRequest(url: url)
        #expect(request.value(forHTTPHeaderField: "Accept") == nil)
        request.setValue("1", forHTTPHeaderField: "A")
        #expect(request.value(forHTTPHeaderField: "Accept") == nil)
    }

    // MARK: Order and spelling

    @Test func orderedFieldsKeepOrderAndSpelling() {
        var request = URLRequest(url: url)
        request.setValue("v1", forHTTPHeaderField: "x-first")
        request.setValue("v2", forHTTPHeaderField: "Accept")
        request.setValue("v3", forHTTPHeaderField: "content-TYPE")
        request.addValue("v4", forHTTPHeaderField: "X-Added")
        #expect(names(request) == ["x-first", "Accept", "content-TYPE", "X-Added"])
        #expect(values(request) == ["v1", "v2", "v3", "v4"])
    }

    @Test func replacingKeepsThePositionAndTakesTheNewSpelling() {
        var request = URLRequest(url: url)
        request.setValue("1", forHTTPHeaderField: "A")
        request.setValue("2", forHTTPHeaderField: "b")
        request.setValue("3", forHTTPHeaderField: "C")
        request.setValue("20", forHTTPHeaderField: "B")
        #expect(names(request) == ["A", "B", "C"])
        #expect(values(request) == ["1", "20", "3"])
        #expect(request.allHTTPHeaderFields == ["A": "1", "B": "20", "C": "3"])
    }

    @Test func settingNilRemovesEverySpelling() {
        var request = URLRequest(url: url)
        request.allHTTPHeaderFields = ["x-a": "1", "X-A": "2", "Keep": "3"]
        request.setValue(nil, forHTTPHeaderField: "X-a")
        #expect(names(request) == ["Keep"])
        #expect(request.value(forHTTPHeaderField: "x-a") == nil)
    }

    @Test func replacingCollapsesCaseVariantsIntoOneField() {
        var request = URLRequest(url: url)
        request.allHTTPHeaderFields = ["b": "0", "x-a": "1", "X-A": "2"]
        request.setValue("3", forHTTPHeaderField: "x-A")
        #expect(names(request) == ["b", "x-A"])
        #expect(values(request) == ["0", "3"])
    }

    @Test func dictionaryAssignmentIsSortedByNameForDeterminism() {
        var request = URLRequest(url: url)
        request.allHTTPHeaderFields = ["b": "2", "A": "1", "c": "3", "a": "0"]
        #expect(names(request) == ["A", "a", "b", "c"])
        #expect(request.value(forHTTPHeaderField: "a") == "1")
    }

    // MARK: Dictionary view

    @Test func dictionaryIsNilUntilAFieldIsSet() {
        var request = URLRequest(url: url)
        #expect(request.allHTTPHeaderFields == nil)
        #expect(request.orderedHeaderFields.isEmpty)
        request.setValue(nil, forHTTPHeaderField: "Accept")
        #expect(request.allHTTPHeaderFields == [:])
        request.allHTTPHeaderFields = nil
        #expect(request.allHTTPHeaderFields == nil)
    }

    @Test func setAndAddReportCapitalisedKeysLikeFoundationNetworking() {
        var request = URLRequest(url: url)
        request.setValue("text/plain", forHTTPHeaderField: "content-type")
        request.addValue("abc", forHTTPHeaderField: "x-request-id")
        request.setValue("keep-alive", forHTTPHeaderField: "CONNECTION")
        #expect(request.allHTTPHeaderFields == [
            "Content-Type": "text/plain",
            "X-Request-Id": "abc",
            "Connection": "keep-alive",
        ])
        #expect(names(request) == ["content-type", "x-request-id", "CONNECTION"])
    }

    @Test func dictionaryAssignmentKeepsKeysAsGiven() {
        var request = URLRequest(url: url)
        request.allHTTPHeaderFields = ["content-type": "a", "X-UPPER": "b"]
        #expect(request.allHTTPHeaderFields == ["content-type": "a", "X-UPPER": "b"])
        request.addValue("c", forHTTPHeaderField: "Content-Type")
        #expect(request.allHTTPHeaderFields == ["content-type": "a,c", "X-UPPER": "b"])
    }

    // MARK: addValue

    @Test func addValueJoinsWithACommaInOrder() {
        var request = URLRequest(url: url)
        request.addValue("text/html", forHTTPHeaderField: "Accept")
        request.addValue("application/json", forHTTPHeaderField: "accept")
        request.addValue("*/*", forHTTPHeaderField: "ACCEPT")
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/html,application/json,*/*")
        #expect(names(request) == ["Accept"])
    }

    @Test func addValueAfterSetValueAppends() {
        var request = URLRequest(url: url)
        request.setValue("a", forHTTPHeaderField: "Cache-Control")
        request.addValue("b", forHTTPHeaderField: "cache-control")
        #expect(request.allHTTPHeaderFields == ["Cache-Control": "a,b"])
    }

    // MARK: Validation

    static let valueCases: [String] = [
        "plain value", "", "tab\tinside", "folded\r\n continuation", "obs-text é", "bare\rcr", "bare\nlf",
        "injected\r\nX-Evil: 1", "trailing\r\n", "nul\u{0}",
    ]

    // Values are stored as given, whatever they hold: a value that cannot go on the wire (CR, LF, NUL) is
    // refused when the request is sent, with `badURL`, before a byte is written (URLSessionTests), the same
    // way as through `allHTTPHeaderFields` — never dropped silently.
    @Test(arguments: valueCases)
    func valuesAreStoredAsGiven(_ value: String) {
        var set = URLRequest(url: url)
        set.setValue("old", forHTTPHeaderField: "X-Test")
        set.setValue(value, forHTTPHeaderField: "X-Test")
        #expect(set.value(forHTTPHeaderField: "X-Test") == value)

        var added = URLRequest(url: url)
        added.addValue(value, forHTTPHeaderField: "X-Test")
        #expect(added.value(forHTTPHeaderField: "X-Test") == value)
        #expect(added.allHTTPHeaderFields == ["X-Test": value])
    }

    // MARK: Value semantics

    @Test func copiesHaveIndependentHeaders() {
        var original = URLRequest(url: url)
        original.setValue("1", forHTTPHeaderField: "A")
        var copy = original
        copy.setValue("2", forHTTPHeaderField: "A")
        copy.addValue("3", forHTTPHeaderField: "B")
        #expect(original.value(forHTTPHeaderField: "A") == "1")
        #expect(original.value(forHTTPHeaderField: "B") == nil)
        #expect(copy.value(forHTTPHeaderField: "A") == "2")
    }
}
