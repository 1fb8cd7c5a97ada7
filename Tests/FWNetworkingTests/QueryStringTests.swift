import Foundation
@testable import FWNetworking
import Testing

// QueryString: parameters flattened into pairs (nested dictionaries, arrays, sets, nil and NSNull,
// scalars of every kind), keys sorted by their text, pinned as the exact query string bytes.
@Suite struct QueryStringTests {
    /// A named parameters dictionary (built afresh per test: it is not Sendable) and its query string.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let parameters: @Sendable () -> [AnyHashable: Any]
        let expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "one pair", parameters: { ["a": "b"] }, expected: "a=b"),
        Case(name: "keys sorted", parameters: { ["b": 2, "a": 1, "c": 3] }, expected: "a=1&b=2&c=3"),
        Case(name: "sorted as strings, by code point",
             parameters: { ["b": 1, "a": 1, "B": 1, "10": 1, "9": 1, "é": 1] },
             expected: "10=1&9=1&B=1&a=1&b=1&%C3%A9=1"),
        Case(name: "nested dictionary", parameters: { ["user": ["name": "x", "age": 3]] },
             expected: "user%5Bage%5D=3&user%5Bname%5D=x"),
        Case(name: "three levels", parameters: { ["a": ["b": ["c": "d"]]] }, expected: "a%5Bb%5D%5Bc%5D=d"),
        Case(name: "array", parameters: { ["ids": [3, 1, 2]] }, expected: "ids%5B%5D=3&ids%5B%5D=1&ids%5B%5D=2"),
        Case(name: "array of dictionaries", parameters: { ["items": [["id": 1], ["id": 2]]] },
             expected: "items%5B%5D%5Bid%5D=1&items%5B%5D%5Bid%5D=2"),
        Case(name: "nested arrays", parameters: { ["m": [[1, 2], [3]]] },
             expected: "m%5B%5D%5B%5D=1&m%5B%5D%5B%5D=2&m%5B%5D%5B%5D=3"),
        Case(name: "set repeats the key, sorted", parameters: { ["tags": Set(["b", "c", "a"])] },
             expected: "tags=a&tags=b&tags=c"),
        Case(name: "NSNull and nil give a bare field", parameters: { ["a": NSNull(), "b": Int?.none as Any, "c": 1] },
             expected: "a&b&c=1"),
        Case(name: "optional values unwrapped", parameters: { ["a": Int?.some(4) as Any] }, expected: "a=4"),
        Case(name: "booleans as 1 and 0", parameters: { ["t": true, "f": false, "n": NSNumber(value: true)] },
             expected: "f=0&n=1&t=1"),
        Case(name: "numbers",
             parameters: { ["i": -7, "u": UInt8(255), "d": 2.0, "e": 2.5, "f": Float(0.1), "g": 1e20] },
             expected: "d=2&e=2.5&f=0.1&g=1e%2B20&i=-7&u=255"),
        Case(name: "Data escaped byte for byte", parameters: { ["d": Data([0xFF, 0x41, 0x20])] },
             expected: "d=%FFA%20"),
        Case(name: "URL as its absolute string", parameters: { ["u": URL(string: "http://h/p?q=1#f")!] },
             expected: "u=http%3A//h/p?q%3D1%23f"),
        Case(name: "delimiters escaped in keys and values", parameters: { ["a b": "c&d=e", "k[x]": "#"] },
             expected: "a%20b=c%26d%3De&k%5Bx%5D=%23"),
        Case(name: "non-ASCII", parameters: { ["q": "日本"] }, expected: "q=%E6%97%A5%E6%9C%AC"),
        Case(name: "empty collections drop out", parameters: { ["a": [Int](), "b": [String: Int](), "c": 1] },
             expected: "c=1"),
        Case(name: "equal key text ordered by type", parameters: { [1: "int", "1": "string"] },
             expected: "1=int&1=string"),
        Case(name: "empty", parameters: { [:] }, expected: ""),
    ]

    @Test(arguments: cases)
    func queryString(_ testCase: Case) {
        #expect(HTTPRequestSerializer.queryString(from: testCase.parameters()) == testCase.expected)
    }

    @Test func sameOutputOnEveryRunDespiteDictionaryOrder() {
        var keys: [String: Any] = [:]
        for index in 0..<200 { keys["k\(index)"] = index }
        let expected = (0..<200).map { "k\($0)" }.sorted().map { "\($0)=\($0.dropFirst())" }.joined(separator: "&")
        #expect(HTTPRequestSerializer.queryString(from: keys) == expected)
    }

    @Test func pairsKeepFieldsUnescapedForForms() {
        let pairs = QueryString.pairs(["a": ["b": [1, NSNull()]], "c": Data([1])])
        #expect(pairs.map(\.field) == ["a[b][]", "a[b][]", "c"])
        #expect(pairs.map(\.value) == [.text("1"), .absent, .bytes(Data([1]))])
    }

    @Test func dictionaryUnwrapsOptionalsAndRejectsOthers() {
        let wrapped: [String: Any]? = ["a": 1]
        #expect(QueryString.dictionary(wrapped as Any)?.count == 1)
        #expect(QueryString.dictionary([1, 2]) == nil)
        #expect(QueryString.dictionary("a=1") == nil)
    }
}
