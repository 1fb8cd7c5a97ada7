// HTTPURLResponse+HeaderParametersTests.swift
//
// Splitting parameterised header values and decoding RFC 8187 extended values.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct HTTPURLResponseHeaderParametersTests {
    typealias Parameter = HTTPURLResponse.ParameterizedValue.Parameter

    // MARK: Splitting

    struct SplitCase: Sendable, CustomTestStringConvertible {
        var field: String
        var value: String
        var parameters: [(String, String?)]
        var testDescription: String { field.debugDescription }
    }

    static let splitCases: [SplitCase] = [
        SplitCase(field: "text/html", value: "text/html", parameters: []),
        SplitCase(field: "  text/html  ", value: "text/html", parameters: []),
        SplitCase(field: "", value: "", parameters: []),
        SplitCase(field: "text/html; charset=utf-8", value: "text/html", parameters: [("charset", "utf-8")]),
        SplitCase(field: "text/html ;charset = \"utf-8\" ", value: "text/html", parameters: [("charset", "utf-8")]),
        SplitCase(field: "a; b; c=", value: "a", parameters: [("b", nil), ("c", "")]),
        SplitCase(field: "a;;b=1;", value: "a", parameters: [("b", "1")]),
        SplitCase(field: "a; f=\"x;y\"", value: "a", parameters: [("f", "x;y")]),
        SplitCase(field: "a; f=\"x=y\"", value: "a", parameters: [("f", "x=y")]),
        SplitCase(field: "a; f=\"q\\\"uote\\\\\"", value: "a", parameters: [("f", "q\"uote\\")]),
        SplitCase(field: "a; f=b\\;c; g=1", value: "a", parameters: [("f", "b\\;c"), ("g", "1")]),
        SplitCase(field: "a; f=\"unterminated;x", value: "a", parameters: [("f", "unterminated;x")]),
        SplitCase(field: "attachment; aa=bb\\; filename=\"wrong.ext\"; filename=\"fname.ext\"; cc=dd",
                  value: "attachment",
                  parameters: [("aa", "bb\\; filename=wrong.ext"), ("filename", "fname.ext"), ("cc", "dd")]),
    ]

    @Test(arguments: splitCases)
    func splitsValueAndParameters(_ testCase: SplitCase) {
        let parsed = HTTPURLResponse.ParameterizedValue(parsing: testCase.field)
        #expect(parsed.value == testCase.value)
        #expect(parsed.parameters == testCase.parameters.map { Parameter(name: $0.0, value: $0.1) })
    }

    @Test func parameterLookupIsCaseInsensitiveAndSkipsValuelessOnes() {
        let parsed = HTTPURLResponse.ParameterizedValue(parsing: "x; Charset; CHARSET=A; charset=B")
        #expect(parsed.parameter(named: "charset") == "A")
        #expect(parsed.parameter(named: "missing") == nil)
    }

    // MARK: Extended values

    struct ExtendedCase: Sendable, CustomTestStringConvertible {
        var text: String
        var decoded: String?
        var testDescription: String { text.debugDescription }
    }

    static let extendedCases: [ExtendedCase] = [
        ExtendedCase(text: "UTF-8''na%C3%AFve%20file.txt", decoded: "naïve file.txt"),
        ExtendedCase(text: "utf-8'en'%e2%82%ac%20rates", decoded: "€ rates"),
        ExtendedCase(text: "iso-8859-1'de'%E4rger.txt", decoded: "ärger.txt"),
        ExtendedCase(text: "UTF-8''plain.txt", decoded: "plain.txt"),
        ExtendedCase(text: "UTF-8''it's.txt", decoded: "it's.txt"),
        ExtendedCase(text: "UTF-8''bad%C3", decoded: nil),
        ExtendedCase(text: "UTF-8''bad%G1", decoded: nil),
        ExtendedCase(text: "UTF-8''cut%4", decoded: nil),
        ExtendedCase(text: "UTF-8'only-one-quote", decoded: nil),
        ExtendedCase(text: "no-quotes", decoded: nil),
        ExtendedCase(text: "Shift_JIS''%82%A0", decoded: nil),
    ]

    @Test(arguments: extendedCases)
    func decodesExtendedValues(_ testCase: ExtendedCase) {
        #expect(HTTPURLResponse.decodeExtendedValue(testCase.text) == testCase.decoded)
    }
}
