// PublicSuffixListTests.swift
//
// The public suffix algorithm (publicsuffix.org/list) with each kind of rule, the system list
// (Debian's publicsuffix package), and the single-label fallback.

@testable import FWURLSession
import Testing

@Suite struct PublicSuffixListTests {
    static let list = PublicSuffixList(rules: """
        // ===BEGIN ICANN DOMAINS===
        com
        uk
        co.uk
        *.kawasaki.jp
        !city.kawasaki.jp
        公司.cn
        // A comment line, and a rule followed by text:
        github.io trailing words are ignored

        """)

    @Test(arguments: [
        ("example.com", "com"), ("www.example.com", "com"), ("com", "com"),
        ("foo.co.uk", "co.uk"), ("co.uk", "co.uk"), ("bar.uk", "uk"),           // the longest rule wins
        ("a.b.kawasaki.jp", "b.kawasaki.jp"), ("b.kawasaki.jp", "b.kawasaki.jp"), // a wildcard
        ("city.kawasaki.jp", "kawasaki.jp"), ("www.city.kawasaki.jp", "kawasaki.jp"), // an exception
        ("a.xn--55qx5d.cn", "xn--55qx5d.cn"),                                     // a Unicode rule
        ("user.github.io", "github.io"),
        ("example.test", "test"), ("localhost", "localhost"),                     // the implicit "*" rule
    ])
    func findsThePublicSuffix(_ domain: String, _ suffix: String) {
        #expect(Self.list.publicSuffix(of: domain) == suffix, "\(domain)")
    }

    @Test(arguments: [
        ("com", true), ("co.uk", true), ("x.kawasaki.jp", true), ("city.kawasaki.jp", false), ("github.io", true),
        ("example.com", false), ("test", true), ("example.test", false),
    ])
    func recognisesPublicSuffixes(_ domain: String, _ isSuffix: Bool) {
        #expect(Self.list.isPublicSuffix(domain) == isSuffix, "\(domain)")
    }

    @Test(arguments: [
        ("www.example.com", "example.com"), ("example.com", "example.com"), ("a.b.foo.co.uk", "foo.co.uk"),
        ("com", "com"), ("192.168.0.1", "192.168.0.1"), ("::1", "::1"), ("x.city.kawasaki.jp", "city.kawasaki.jp"),
    ])
    func findsTheRegistrableDomain(_ host: String, _ registrable: String) {
        #expect(Self.list.registrableDomain(of: host) == registrable, "\(host)")
    }

    @Test func theSystemListIsReadOnce() throws {
        let system = PublicSuffixList.system
        try #require(system.hasRules, "install the publicsuffix package (Scripts/install-deps.sh)")
        #expect(system.isPublicSuffix("co.uk"))
        #expect(system.isPublicSuffix("github.io"))
        #expect(system.isPublicSuffix("xn--55qx5d.cn"))
        #expect(system.isPublicSuffix("foo.ck"))
        #expect(!system.isPublicSuffix("www.ck"))
        #expect(system.registrableDomain(of: "www.bbc.co.uk") == "bbc.co.uk")
    }

    @Test func withoutAListSingleLabelsArePublicSuffixes() {
        let fallback = PublicSuffixList.singleLabel
        #expect(!fallback.hasRules)
        #expect(fallback.isPublicSuffix("com"))
        #expect(fallback.isPublicSuffix("localhost"))
        #expect(!fallback.isPublicSuffix("co.uk"))
        #expect(fallback.registrableDomain(of: "www.example.com") == "example.com")
    }
}
