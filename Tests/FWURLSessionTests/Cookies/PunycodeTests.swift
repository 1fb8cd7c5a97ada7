// PunycodeTests.swift
//
// RFC 3492 encoding, checked against Python's "punycode" codec, and the IDNA "xn--" form of labels.

@testable import FWURLSession
import Testing

@Suite struct PunycodeTests {
    @Test(arguments: [
        ("bücher", "bcher-kva"), ("münchen", "mnchen-3ya"), ("公司", "55qx5d"), ("例え", "r8jz45g"),
        ("ü", "tda"), ("abc-ü", "abc--3ra"), ("пример", "e1afmkfd"), ("ドメイン名例", "eckwd4c7cu47r2wf"),
        ("Mañana", "Maana-pta"),
    ])
    func encodesAsPythonDoes(_ text: String, _ encoded: String) {
        #expect(Punycode.encode(text) == encoded)
    }

    @Test(arguments: [
        ("example", "example"), ("bücher", "xn--bcher-kva"), ("", ""),
    ])
    func asciiLabels(_ label: String, _ ascii: String) {
        #expect(Punycode.asciiLabel(label) == ascii)
    }

    @Test func asciiDomainsConvertEachLabel() {
        #expect(Punycode.asciiDomain("公司.cn") == "xn--55qx5d.cn")
        #expect(Punycode.asciiDomain("www.bücher.de") == "www.xn--bcher-kva.de")
        #expect(Punycode.asciiDomain("*.example.com") == "*.example.com")
    }
}
