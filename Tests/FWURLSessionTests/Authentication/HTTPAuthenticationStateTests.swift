// HTTPAuthenticationStateTests.swift
//
// The per-protection-space state: nonce counts for repeated requests, stale=true (retry without asking),
// refused credentials (ask again), unanswerable challenges, and the client nonce generator.

@testable import FWURLSession
import Testing

@Suite struct HTTPAuthenticationStateTests {
    static func challenge(_ field: String) throws -> HTTPAuthenticationChallenge {
        try #require(HTTPAuthenticationChallenge.challenges(in: [field]).first)
    }

    static let digest = "Digest realm=\"r\", qop=\"auth\", nonce=\"n1\", algorithm=SHA-256"

    @Test func eachDigestAnswerTakesTheNextNonceCount() throws {
        var state = try #require(HTTPAuthenticationState(challenge: try Self.challenge(Self.digest)))
        let first = try #require(state.authorization(method: "GET", uri: "/a", user: "u", password: "p") { "c1" })
        let second = try #require(state.authorization(method: "GET", uri: "/b", user: "u", password: "p") { "c2" })
        #expect(first.contains("nc=00000001") && first.contains("cnonce=\"c1\"") && first.contains("uri=\"/a\""))
        #expect(second.contains("nc=00000002") && second.contains("cnonce=\"c2\"") && second.contains("nonce=\"n1\""))
        guard case .digest(_, let count) = state.scheme else { Issue.record("not digest"); return }
        #expect(count == 2)
    }

    @Test func aStaleChallengeRetriesWithTheNewNonceWithoutAsking() throws {
        var state = try #require(HTTPAuthenticationState(challenge: try Self.challenge(Self.digest)))
        _ = state.authorization(method: "GET", uri: "/", user: "u", password: "p") { "c" }
        let outcome = state.update(with: try Self.challenge(
            "Digest realm=\"r\", qop=\"auth\", nonce=\"n2\", algorithm=SHA-256, stale=true"))
        #expect(outcome == .retryWithSameCredential)
        let answer = try #require(state.authorization(method: "GET", uri: "/", user: "u", password: "p") { "c" })
        #expect(answer.contains("nonce=\"n2\"") && answer.contains("nc=00000001"))
    }

    @Test(arguments: [
        "Digest realm=\"r\", qop=\"auth\", nonce=\"n2\", algorithm=SHA-256",     // not stale: refused
        "Basic realm=\"r\"",                                                     // the server changed scheme
    ])
    func anotherChallengeAsksForTheCredentialAgain(_ field: String) throws {
        var state = try #require(HTTPAuthenticationState(challenge: try Self.challenge(Self.digest)))
        #expect(state.update(with: try Self.challenge(field)) == .askForCredential)
        #expect(state == HTTPAuthenticationState(challenge: try Self.challenge(field)))
    }

    @Test func aStaleFlagAfterBasicStillAsks() throws {
        var state = try #require(HTTPAuthenticationState(challenge: try Self.challenge("Basic realm=r")))
        #expect(state.update(with: try Self.challenge(Self.digest + ", stale=true")) == .askForCredential)
    }

    @Test func anUnanswerableChallengeLeavesTheStateAlone() throws {
        var state = try #require(HTTPAuthenticationState(challenge: try Self.challenge(Self.digest)))
        let before = state
        #expect(state.update(with: try Self.challenge("NTLM")) == .cannotAnswer)
        #expect(state == before)
    }

    @Test func basicAnswersAreAlwaysTheSame() throws {
        var state = try #require(HTTPAuthenticationState(challenge: try Self.challenge("Basic realm=r")))
        #expect(state.scheme == .basic)
        let answer = state.authorization(method: "GET", uri: "/", user: "Aladdin", password: "open sesame")
        #expect(answer == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(state.authorization(method: "POST", uri: "/x", user: "Aladdin", password: "open sesame") == answer)
        #expect(state.authorization(method: "GET", uri: "/", user: "a:b", password: "p") == nil)
    }

    @Test(arguments: ["NTLM", "Bearer", "Digest realm=r", "Digest nonce=n, qop=auth-int"])
    func noStateForChallengesThatCannotBeAnswered(_ field: String) throws {
        #expect(HTTPAuthenticationState(challenge: try Self.challenge(field)) == nil)
    }

    @Test func clientNoncesAreRandomHex() {
        let nonces = (0..<8).map { _ in HTTPAuthenticationState.randomClientNonce() }
        #expect(Set(nonces).count == 8)
        #expect(nonces.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
    }
}
