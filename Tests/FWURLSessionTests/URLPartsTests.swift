import Foundation
@testable import FWURLSession
import Testing

// The one-pass reading of a plain URL (`URLParts(plain:)`) against Foundation's accessors, the reference.
@Suite struct URLPartsTests {
    /// URLs of the plain form: read in one pass, and read as Foundation reads them.
    static let plain = [
        "http://example.com", "http://example.com/", "https://example.com/a/b?x=1&y=%20z", "HTTP://Example.COM/P",
        "http://127.0.0.1:8080/p%2Fq", "http://h.example/a#fragment", "http://h.example?q=1", "http://h.example#f",
        "http://h.example/a?", "http://h.example/a?#f", "http://h.example:80", "http://h.example:0/",
        "http://h.example:65535/x", "http://h.example:99999/x", "http://h.example:00080/x", "ws://h.example/socket",
        "wss://h.example:8443/socket?token=1", "http://a-b_c~d.example./x;y=1/z", "http://h.example/a/../b/./c",
        "http://h.example/%E2%82%AC?q=%E2%82%AC", "http://h.example/a?b?c=d/e", "git+ssh://h.example/repo",
        "ftp://h.example/file", "http://h.example//double//slashes", "http://h.example/a%20b",
        "http://xn--bcher-kva.example/x",
    ]

    /// URLs the one-pass reading leaves to Foundation: their parts need decoding, a base URL or more grammar.
    static let notPlain = [
        "http://user:password@h.example/x", "http://[::1]:9000/x", "http://h%2Eexample/x", "http://h.example:/x",
        "http://h.example:123456/x", "http:///no-host", "http:h.example/x", "mailto:someone@h.example",
        "http://h.example:80a/x", "file:///tmp/x",
    ]

    @Test(arguments: plain)
    func aPlainURLIsReadInOnePassAsFoundationReadsIt(_ string: String) throws {
        let url = try #require(URL(string: string))
        let parts = try #require(URLParts(plain: url))
        #expect(parts == URLParts(accessorsOf: url))
    }

    @Test(arguments: notPlain)
    func anyOtherURLIsLeftToFoundation(_ string: String) throws {
        guard let url = URL(string: string) else { return } // Foundation refuses it: nothing to read
        #expect(URLParts(plain: url) == nil)
        #expect(URLParts(url) == URLParts(accessorsOf: url))
    }

    @Test func aRelativeURLIsReadThroughItsAbsoluteURL() throws {
        let url = try #require(URL(string: "b?c=d", relativeTo: URL(string: "https://h.example:8443/a/")))
        #expect(URLParts(plain: url) == nil)
        #expect(URLParts(url) == URLParts(accessorsOf: url))
        #expect(URLParts(url).target == "/a/b?c=d")
        #expect(URLParts(url).port == 8443)
    }

    @Test func theOnePassReadingLowercasesAndKeepsWhatItShould() throws {
        let url = try #require(URL(string: "HTTPS://H.Example:8443/A%2fB?Q=R#F"))
        let parts = try #require(URLParts(plain: url))
        #expect(parts.scheme == "https")
        #expect(parts.host == "h.example")
        #expect(parts.port == 8443)
        #expect(parts.target == "/A%2fB?Q=R")
    }
}
