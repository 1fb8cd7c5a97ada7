import Foundation
@testable import FWNetworking
import Testing
import TestSupport

// Percent-escaping: the characters AFNetworking leaves alone, every ASCII character against Foundation's
// addingPercentEncoding with the same allowed set, emoji, combining characters, ZWJ sequences and flags,
// random Unicode strings, and 10,000 emoji in one string.
@Suite struct QueryStringPercentEscapingTests {
    /// urlQueryAllowed without ":#[]@" and "!$&'()*+,;=": what AFNetworking's escaping keeps.
    private static let foundationAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return allowed
    }()

    static let table: [(String, String)] = [
        ("abcXYZ019", "abcXYZ019"),
        ("-._~", "-._~"),
        ("/?", "/?"),
        (":#[]@", "%3A%23%5B%5D%40"),
        ("!$&'()*+,;=", "%21%24%26%27%28%29%2A%2B%2C%3B%3D"),
        ("a b\t\n%\"<>\\^`{|}", "a%20b%09%0A%25%22%3C%3E%5C%5E%60%7B%7C%7D"),
        ("é", "%C3%A9"),
        ("e\u{301}", "e%CC%81"),
        ("a\u{301}\u{316}\u{327}", "a%CC%81%CC%96%CC%A7"),
        ("😀", "%F0%9F%98%80"),
        ("👍🏽", "%F0%9F%91%8D%F0%9F%8F%BD"),
        ("👨‍👩‍👧", "%F0%9F%91%A8%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7"),
        ("🇫🇷", "%F0%9F%87%AB%F0%9F%87%B7"),
        ("\u{0}\u{7F}", "%00%7F"),
        ("", ""),
    ]

    @Test(arguments: table)
    func escapes(_ input: String, _ expected: String) {
        #expect(HTTPRequestSerializer.percentEscapedString(from: input) == expected)
    }

    @Test func everyASCIICharacterAsFoundationEscapesIt() {
        for value in UInt8(0)...UInt8(127) {
            let text = String(UnicodeScalar(value))
            #expect(HTTPRequestSerializer.percentEscapedString(from: text)
                    == text.addingPercentEncoding(withAllowedCharacters: Self.foundationAllowed), "byte \(value)")
        }
    }

    @Test func randomUnicodeAsFoundationEscapesIt() throws {
        var random = SplitMix64(seed: 15)
        for _ in 0..<300 {
            let scalars = (0..<Int.random(in: 1...40, using: &random)).compactMap { _ -> Unicode.Scalar? in
                let plane = [0x7F, 0x7FF, 0xFFFF, 0x10FFFF].randomElement(using: &random) ?? 0x7F
                return Unicode.Scalar(UInt32.random(in: 0...UInt32(plane), using: &random))
            }
            let text = String(String.UnicodeScalarView(scalars))
            let escaped = HTTPRequestSerializer.percentEscapedString(from: text)
            #expect(escaped == text.addingPercentEncoding(withAllowedCharacters: Self.foundationAllowed))
            #expect(escaped.removingPercentEncoding == text)
        }
    }

    @Test func tenThousandEmojiRoundTrip() throws {
        let emoji = String(repeating: "😀", count: 10_000)
        let escaped = HTTPRequestSerializer.percentEscapedString(from: emoji)
        #expect(escaped.utf8.count == 10_000 * 12)
        #expect(escaped == String(repeating: "%F0%9F%98%80", count: 10_000))
        #expect(escaped.removingPercentEncoding == emoji)
    }

    @Test func tenThousandMixedGraphemesRoundTrip() throws {
        let graphemes = ["👨‍👩‍👧", "e\u{301}", "🇫🇷", "👍🏽", "a", "日", " "]
        let text = (0..<10_000).map { graphemes[$0 % graphemes.count] }.joined()
        let escaped = HTTPRequestSerializer.percentEscapedString(from: text)
        #expect(escaped.removingPercentEncoding == text)
        #expect(escaped.removingPercentEncoding?.count == 10_000)
        #expect(escaped == text.addingPercentEncoding(withAllowedCharacters: Self.foundationAllowed))
    }

    @Test func bytesThatAreNotUTF8StayBytes() {
        #expect(QueryString.percentEscaped([0xC3, 0x28, 0xFF, 0x41]) == "%C3%28%FFA")
    }
}
