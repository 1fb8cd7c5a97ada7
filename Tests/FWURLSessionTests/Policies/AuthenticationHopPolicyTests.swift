import Foundation
@testable import FWURLSession
import Testing

// Policy 4 without a server: which 401s ask, what each answer decides, refusals counted up to the limit,
// and the credential that got through kept in an in-memory storage.
@Suite struct AuthenticationHopPolicyTests {
    private static let url = "http://a.test/x?q"
    private static let basic = [("WWW-Authenticate", "Basic realm=\"r\"")]
    private static let both = [("WWW-Authenticate", "Digest realm=\"d\", nonce=\"n\""),
                               ("WWW-Authenticate", "Basic realm=\"r\"")]

    private static func decide(_ fields: [(String, String)], status: Int = 401, url: String = url,
                               _ state: inout TaskPolicyState,
                               _ configuration: URLSessionConfiguration = HopFixtures.configuration()) -> HopDecision {
        AuthenticationHopPolicy.decide(Hop(request: HopFixtures.request(url)),
                                       HopFixtures.response(url, status: status, fields), &state, configuration)
    }

    private static func challenge(_ decision: HopDecision) throws -> HopChallenge {
        guard case .ask(.challenge(let challenge)) = decision else { throw Unexpected(decision: decision.summary) }
        return challenge
    }

    struct Unexpected: Error { var decision: String }

    @Test(arguments: [
        (401, basic, "ask(challenge Basic r failures=0 proposed=-)"),
        (401, both, "ask(challenge Digest d failures=0 proposed=-)"),
        (401, [("WWW-Authenticate", "Bearer")], "continue"),
        (401, [], "continue"),
        (200, basic, "continue"),
        (407, basic, "continue"),
    ])
    func decide(_ status: Int, _ fields: [(String, String)], _ expected: String) {
        var state = TaskPolicyState()
        #expect(Self.decide(fields, status: status, &state).summary == expected)
    }

    @Test func theProposedCredentialIsTheStoragesDefaultElseTheURLsUserInfo() throws {
        let configuration = HopFixtures.configuration()
        var state = TaskPolicyState()
        let first = try Self.challenge(Self.decide(Self.basic, url: "http://me:pw@a.test/x", &state, configuration))
        #expect(first.proposed?.user == "me")
        configuration.urlCredentialStorage?.setDefaultCredential(
            URLCredential(user: "stored", password: "s", persistence: .forSession), for: first.space)
        state = TaskPolicyState()
        #expect(Self.decide(Self.basic, url: "http://me:pw@a.test/x", &state, configuration).summary
            == "ask(challenge Basic r failures=0 proposed=stored)")
    }

    @Test(arguments: [
        (URLSession.AuthChallengeDisposition.useCredential, "replace(authentication GET http://a.test/x?q)"),
        (.performDefaultHandling, "continue"),
        (.rejectProtectionSpace, "continue"),
        (.cancelAuthenticationChallenge, "cancelTask"),
    ])
    func theAnswerDecides(_ disposition: URLSession.AuthChallengeDisposition, _ expected: String) throws {
        var state = TaskPolicyState()
        let challenge = try Self.challenge(Self.decide(Self.basic, &state))
        let decision = AuthenticationHopPolicy.resolve(
            challenge, disposition, URLCredential(user: "u", password: "p", persistence: .none),
            Hop(request: HopFixtures.request(Self.url)), &state, HopFixtures.configuration())
        #expect(decision.summary == expected)
        if case .replace(let next) = decision {
            #expect(next.request.value(forHTTPHeaderField: "Authorization") == "Basic dTpw")
        }
    }

    @Test func rejectingASpaceMovesOnToTheNextScheme() throws {
        var state = TaskPolicyState()
        let challenge = try Self.challenge(Self.decide(Self.both, &state))
        let decision = AuthenticationHopPolicy.resolve(challenge, .rejectProtectionSpace, nil,
                                                       Hop(request: HopFixtures.request(Self.url)), &state,
                                                       HopFixtures.configuration())
        #expect(decision.summary == "ask(challenge Basic r failures=0 proposed=-)")
    }

    @Test func refusalsCountUpToTheLimitAndTheSuccessIsKept() throws {
        var state = TaskPolicyState()
        let configuration = HopFixtures.configuration()
        let hop = Hop(request: HopFixtures.request(Self.url))
        var challenge = try Self.challenge(Self.decide(Self.basic, &state, configuration))
        for failures in 1...AuthenticationHopPolicy.maximumFailures {
            _ = AuthenticationHopPolicy.resolve(challenge, .useCredential,
                                                URLCredential(user: "u", password: "p", persistence: .forSession),
                                                hop, &state, configuration)
            challenge = try Self.challenge(Self.decide(Self.basic, &state, configuration))
            #expect(challenge.failures == failures)
        }
        _ = AuthenticationHopPolicy.resolve(challenge, .useCredential,
                                            URLCredential(user: "u", password: "p", persistence: .forSession),
                                            hop, &state, configuration)
        #expect(Self.decide(Self.basic, &state, configuration).summary == "continue")

        state = TaskPolicyState()
        challenge = try Self.challenge(Self.decide(Self.basic, &state, configuration))
        _ = AuthenticationHopPolicy.resolve(challenge, .useCredential,
                                            URLCredential(user: "kept", password: "p", persistence: .forSession),
                                            hop, &state, configuration)
        AuthenticationHopPolicy.observe(HopFixtures.response(Self.url), &state, configuration)
        #expect(state.authentication == nil)
        #expect(configuration.urlCredentialStorage?.credentials(for: challenge.space)?["kept"] != nil)
    }
}
