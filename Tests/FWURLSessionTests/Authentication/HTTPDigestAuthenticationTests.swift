// HTTPDigestAuthenticationTests.swift
//
// RFC 7616: the §3.9.1 example (Mufasa, "Circle of Life", SHA-256 and MD5), every algorithm and its -sess
// variant, the RFC 2069 form without qop, userhash and username*, and which challenges can be answered.
// Values the RFC does not print were computed with Python's hashlib (the §3.9.2 values printed in the RFC
// are known to be wrong: errata 4897).

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPDigestAuthenticationTests {
    static let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
    static let opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
    static let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    static func challenge(algorithm: String?, qop: String? = "auth, auth-int", extra: String = "") throws
        -> HTTPDigestChallenge {
        var field = "Digest realm=\"http-auth@example.org\""
        if let qop { field += ", qop=\"\(qop)\"" }
        if let algorithm { field += ", algorithm=\(algorithm)" }
        field += ", nonce=\"\(nonce)\", opaque=\"\(opaque)\"" + extra
        let parsed = try #require(HTTPAuthenticationChallenge.challenges(in: [field]).first)
        return try #require(HTTPDigestChallenge(parsed))
    }

    static func answer(_ challenge: HTTPDigestChallenge, nonceCount: UInt32 = 1, user: String = "Mufasa") -> String {
        challenge.authorization(method: "GET", uri: "/dir/index.html", user: user, password: "Circle of Life",
                                nonceCount: nonceCount, cnonce: cnonce)
    }

    @Test func rfc7616SHA256Example() throws {
        #expect(Self.answer(try Self.challenge(algorithm: "SHA-256")) == "Digest username=\"Mufasa\", "
            + "realm=\"http-auth@example.org\", uri=\"/dir/index.html\", algorithm=SHA-256, nonce=\"\(Self.nonce)\", "
            + "nc=00000001, cnonce=\"\(Self.cnonce)\", qop=auth, "
            + "response=\"753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1\", "
            + "opaque=\"\(Self.opaque)\"")
    }

    @Test func rfc7616MD5Example() throws {
        #expect(Self.answer(try Self.challenge(algorithm: "MD5")) == "Digest username=\"Mufasa\", "
            + "realm=\"http-auth@example.org\", uri=\"/dir/index.html\", algorithm=MD5, nonce=\"\(Self.nonce)\", "
            + "nc=00000001, cnonce=\"\(Self.cnonce)\", qop=auth, response=\"8ca523f5e9506fed4657c9700eebdbec\", "
            + "opaque=\"\(Self.opaque)\"")
    }

    @Test(arguments: [
        ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
        ("md5-SESS", "e783283f46242139c486a698fec7211d"),
        ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        ("SHA-256-sess", "2fd51b3a77ad75bad6afad6003e818d767133c46d9e2749e7f5232ae1ea3efd7"),
        ("SHA-512-256", "430d05014cecc49cab6fbe03176d41a1da86cbfe24a16580e22aaad928d960d0"),
        ("SHA-512-256-sess", "3f2a34f923c38b0fb26dce2fdfc2ce326c23cecf86fbb1444f3e51fbbc2cb92e"),
    ])
    func everyAlgorithm(_ algorithm: String, _ response: String) throws {
        let answer = Self.answer(try Self.challenge(algorithm: algorithm))
        #expect(answer.contains("response=\"\(response)\""), "\(algorithm)")
        #expect(answer.contains("algorithm=\(try #require(HTTPDigestChallenge.Algorithm(name: algorithm)).name),"))
    }

    @Test func theNonceCountIsEightHexDigits() throws {
        let answer = Self.answer(try Self.challenge(algorithm: "SHA-256"), nonceCount: 2)
        #expect(answer.contains("nc=00000002"))
        #expect(answer.contains("response=\"8c8db27f49ff1c202f9fb49fa9d2e9eabf078dcc93db40dfd6527010091d1c8e\""))
        #expect(Self.answer(try Self.challenge(algorithm: "MD5"), nonceCount: 0x1AB).contains("nc=000001ab"))
    }

    @Test func withoutAlgorithmMD5IsUsedAndNotNamed() throws {
        let answer = Self.answer(try Self.challenge(algorithm: nil))
        #expect(answer.contains("response=\"8ca523f5e9506fed4657c9700eebdbec\""))
        #expect(!answer.contains("algorithm="))
    }

    @Test func withoutQopTheRFC2069FormIsSent() throws {
        let answer = Self.answer(try Self.challenge(algorithm: "MD5", qop: nil))
        #expect(answer == "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", uri=\"/dir/index.html\", "
            + "algorithm=MD5, nonce=\"\(Self.nonce)\", response=\"7b2cc3b30e75b4777ea31027084363fd\", "
            + "opaque=\"\(Self.opaque)\"")
    }

    @Test func userhashSendsTheHashedUser() throws {
        let answer = Self.answer(try Self.challenge(algorithm: "SHA-256", extra: ", userhash=true"))
        #expect(answer.hasPrefix(
            "Digest username=\"a947aad205e80e429958a387394944c6b496301e79f89d35a4cc23b6ee12b5b6\", realm="))
        #expect(answer.hasSuffix(", userhash=true"))
        #expect(answer.contains("response=\"753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1\""))
    }

    @Test func rfc7616UserhashExampleWithSHA512256() throws {
        let field = "Digest realm=\"api@example.org\", qop=\"auth\", algorithm=SHA-512-256, "
            + "nonce=\"5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK\", "
            + "opaque=\"HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS\", charset=UTF-8, userhash=true"
        let parsed = try #require(HTTPAuthenticationChallenge.challenges(in: [field]).first)
        let challenge = try #require(HTTPDigestChallenge(parsed))
        let answer = challenge.authorization(method: "GET", uri: "/doc/index.html", user: "J\u{E4}s\u{F8}n Doe",
                                             password: "Secret, or not?", nonceCount: 1,
                                             cnonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v")
        #expect(answer.contains("username=\"793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b\""))
        #expect(answer.contains("response=\"93308f41873a77f41ea3d87886878276f1a92271362e72275c3d3a38cf9f5fd6\""))
        var plain = challenge
        plain.userhash = false
        let unhashed = plain.authorization(method: "GET", uri: "/doc/index.html", user: "J\u{E4}s\u{F8}n Doe",
                                           password: "Secret, or not?", nonceCount: 1, cnonce: "c")
        #expect(unhashed.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm=\"api@example.org\""))
    }

    @Test func quotedValuesAreEscaped() throws {
        let answer = Self.answer(try Self.challenge(algorithm: "MD5"), user: "a\"b\\c")
        #expect(answer.hasPrefix("Digest username=\"a\\\"b\\\\c\", "))
        #expect(HTTPDigestChallenge.quoted("plain") == "\"plain\"")
    }

    // MARK: Which challenges can be answered

    @Test(arguments: [
        ("Digest realm=r, nonce=n", true),
        ("Digest nonce=n", true),                                       // realm defaults to empty
        ("Digest realm=r", false),                                      // no nonce
        ("Basic realm=r", false),                                       // not Digest
        ("Digest realm=r, nonce=n, algorithm=SHA-1", false),            // unsupported algorithm
        ("Digest realm=r, nonce=n, algorithm=SHA-256-sessx", false),
        ("Digest realm=r, nonce=n, qop=auth-int", false),               // auth-int is not supported
        ("Digest realm=r, nonce=n, qop=\"auth-int, auth\"", true),
        ("Digest realm=r, nonce=n, qop=AUTH", true),
    ])
    func answerableChallenges(_ field: String, _ answerable: Bool) throws {
        let challenge = try #require(HTTPAuthenticationChallenge.challenges(in: [field]).first)
        #expect((HTTPDigestChallenge(challenge) != nil) == answerable, "\(field)")
    }

    @Test func readsStaleAndOpaque() throws {
        let stale = try Self.challenge(algorithm: "MD5", extra: ", stale=TRUE")
        #expect(stale.stale)
        #expect(stale.opaque == Self.opaque)
        #expect(!(try Self.challenge(algorithm: "MD5", extra: ", stale=false")).stale)
    }
}
