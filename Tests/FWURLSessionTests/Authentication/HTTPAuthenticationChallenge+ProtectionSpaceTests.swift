// HTTPAuthenticationChallenge+ProtectionSpaceTests.swift
//
// The authentication method and protection space a challenge implies, and which challenge is answered.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPAuthenticationChallengeProtectionSpaceTests {
    typealias Challenge = HTTPAuthenticationChallenge

    static func challenge(_ field: String) throws -> Challenge {
        try #require(Challenge.challenges(in: [field]).first)
    }

    @Test(arguments: [
        ("Basic realm=x", NSURLAuthenticationMethodHTTPBasic), ("DIGEST nonce=n", NSURLAuthenticationMethodHTTPDigest),
        ("NTLM", NSURLAuthenticationMethodNTLM), ("Negotiate abc", NSURLAuthenticationMethodNegotiate),
        ("Bearer", nil), ("Newauth realm=x", nil),
    ] as [(String, String?)])
    func authenticationMethods(_ field: String, _ method: String?) throws {
        #expect(try Self.challenge(field).authenticationMethod == method)
    }

    @Test(arguments: [
        ("https://api.fw.test/x", "https", 443), ("http://api.fw.test/", "http", 80),
        ("http://api.fw.test:8080/", "http", 8080), ("HTTPS://API.fw.test:8443/", "https", 8443),
    ])
    func anOriginServersSpace(_ url: String, _ scheme: String, _ port: Int) throws {
        let url = try #require(URL(string: url))
        let challenge = try Self.challenge("Digest realm=\"users\", nonce=n")
        let space = try #require(challenge.protectionSpace(forServerOf: url))
        #expect(space.host.lowercased() == "api.fw.test")
        #expect(space.port == port)
        #expect(space.protocol == scheme)
        #expect(space.realm == "users")
        #expect(space.authenticationMethod == NSURLAuthenticationMethodHTTPDigest)
        #expect(!space.isProxy())
        #expect(space == URLProtectionSpace(host: "api.fw.test", port: port, protocol: scheme, realm: "users",
                                            authenticationMethod: NSURLAuthenticationMethodHTTPDigest))
    }

    @Test func aProxysSpace() throws {
        let space = try #require(try Self.challenge("Basic realm=\"proxy\"")
            .protectionSpace(forProxyHost: "proxy.fw.test", port: 3128, type: NSURLProtectionSpaceHTTPProxy))
        #expect(space.isProxy())
        #expect(space.host == "proxy.fw.test")
        #expect(space.port == 3128)
        #expect(space.proxyType == NSURLProtectionSpaceHTTPProxy)
        #expect(space.realm == "proxy")
        #expect(space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic)
    }

    @Test func noSpaceWithoutAMethodOrAHost() throws {
        let web = try #require(URL(string: "http://h/"))
        let file = try #require(URL(string: "file:///x"))
        #expect(try Self.challenge("Bearer").protectionSpace(forServerOf: web) == nil)
        #expect(try Self.challenge("Bearer").protectionSpace(forProxyHost: "p", port: 1, type: "t") == nil)
        #expect(try Self.challenge("Basic").protectionSpace(forServerOf: file) == nil)
    }

    @Test(arguments: [
        (["Basic realm=a", "Digest realm=b, nonce=n"], "Digest"),                          // Digest over Basic
        (["Digest realm=b, nonce=n, algorithm=SHA-256", "Digest realm=b, nonce=m"], "SHA-256"), // the first one
        (["Digest realm=b, nonce=n, algorithm=SHA-1", "Digest realm=b, nonce=m"], "MD5"),  // skip unsupported
        (["Digest realm=b, nonce=n, qop=auth-int", "Basic realm=a"], "Basic"),             // auth-int only
        (["Digest realm=b", "Basic realm=a"], "Basic"),                                    // no nonce
        (["Bearer", "NTLM"], nil),
    ] as [([String], String?)])
    func choosesTheChallengeToAnswer(_ fields: [String], _ chosen: String?) {
        let preferred = Challenge.preferred(among: Challenge.challenges(in: fields))
        let label = preferred.map { HTTPDigestChallenge($0)?.algorithm.name ?? $0.scheme }
        #expect(label == (chosen == "Digest" ? "MD5" : chosen), "\(fields)")
    }
}
