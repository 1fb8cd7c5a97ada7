import FWHTTP
import Testing

// Our RFC 3986 reader: the parts of valid URIs, the refusals, and reference resolution (RFC 3986 §5.4's
// examples).
@Suite struct URITests {
    struct Valid: Sendable, CustomTestStringConvertible {
        let text: String
        let scheme: String
        let host: String
        let port: Int?
        let target: String
        var userInfo: String? = nil
        var fragment: String? = nil
        var testDescription: String { text }
    }

    static let valid: [Valid] = [
        Valid(text: "http://example.org", scheme: "http", host: "example.org", port: nil, target: "/"),
        Valid(text: "HTTPS://Example.ORG:8443/a/b?x=1&y=%20", scheme: "https", host: "example.org", port: 8443,
              target: "/a/b?x=1&y=%20"),
        Valid(text: "http://127.0.0.1:80/", scheme: "http", host: "127.0.0.1", port: 80, target: "/"),
        Valid(text: "http://[::1]:8080/p", scheme: "http", host: "::1", port: 8080, target: "/p"),
        Valid(text: "http://user:pw@host/p?q#frag", scheme: "http", host: "host", port: nil, target: "/p?q",
              userInfo: "user:pw", fragment: "frag"),
        Valid(text: "http://host:/p;a=b/@:!$&'()*+,=~", scheme: "http", host: "host", port: nil,
              target: "/p;a=b/@:!$&'()*+,=~"),
        Valid(text: "http://host?only", scheme: "http", host: "host", port: nil, target: "/?only"),
    ]

    @Test(arguments: valid) func parsesTheParts(_ row: Valid) throws {
        let uri = try URI(row.text)
        #expect(uri.scheme == row.scheme)
        #expect(uri.host == row.host)
        #expect(uri.port == row.port)
        #expect(uri.requestTarget == row.target)
        #expect(uri.userInfo == row.userInfo)
        #expect(uri.fragment == row.fragment)
        #expect(try URI(uri.description) == uri)
    }

    static let invalid = [
        "example.org/path", "://host", "1http://host", "http:/host", "http://", "http://host:99999/",
        "http://host:8a/", "http://ho st/", "http://host/a b", "http://host/%2", "http://host/%zz",
        "http://[::1/", "http://[zz]/", "http://[::1]x/", "http://host/\u{e9}", "http://host/a\u{7}",
        "http://host/?q=<script>",
    ]

    @Test(arguments: invalid) func refusesText(_ text: String) {
        #expect(throws: URIError.self) { try URI(text) }
    }

    @Test func ipLiteralIsBracketedInTheAuthority() throws {
        #expect(try URI("http://[2001:DB8::1]:81/").authority == "[2001:db8::1]:81")
    }

    // MARK: Resolution (RFC 3986 §5.4.1 and §5.4.2)

    static let resolutions: [(String, String)] = [
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), (";x", "http://a/b/c/;x"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."),
        ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"), ("https://other:444/x", "https://other:444/x"),
    ]

    @Test func resolvesTheRFCExamples() throws {
        let base = try URI("http://a/b/c/d;p?q")
        for (reference, expected) in Self.resolutions {
            #expect(try base.resolving(reference).description == expected, "\(reference)")
        }
    }
}
