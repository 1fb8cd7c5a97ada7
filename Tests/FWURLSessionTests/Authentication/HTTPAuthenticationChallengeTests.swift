// HTTPAuthenticationChallengeTests.swift
//
// RFC 9110 §11.2-11.3: challenges in one field and across fields, auth-params with quoted strings and
// escapes, token68, and lenient handling of junk.

@testable import FWURLSession
import Testing

@Suite struct HTTPAuthenticationChallengeTests {
    typealias Challenge = HTTPAuthenticationChallenge

    @Test(arguments: [
        // One challenge with parameters.
        (["Basic realm=\"simple\""], [Challenge(scheme: "Basic", parameters: ["realm": "simple"])]),
        (["Basic realm=simple, charset=\"UTF-8\""],
         [Challenge(scheme: "Basic", parameters: ["realm": "simple", "charset": "UTF-8"])]),
        // RFC 9110 §11.6.1's example: two challenges in one field, escapes in a quoted string.
        (["Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\""], [
            Challenge(scheme: "Newauth", parameters: ["realm": "apps", "type": "1", "title": "Login to \"apps\""]),
            Challenge(scheme: "Basic", parameters: ["realm": "simple"]),
        ]),
        // Two fields concatenate.
        (["Digest realm=\"a\", nonce=\"n\"", "Basic realm=\"b\""], [
            Challenge(scheme: "Digest", parameters: ["realm": "a", "nonce": "n"]),
            Challenge(scheme: "Basic", parameters: ["realm": "b"]),
        ]),
        // token68, with and without padding, and followed by another challenge.
        (["Negotiate YIIB+w/abc=="], [Challenge(scheme: "Negotiate", token68: "YIIB+w/abc==")]),
        (["Bearer abc.def-ghi_jkl~", "NTLM"],
         [Challenge(scheme: "Bearer", token68: "abc.def-ghi_jkl~"), Challenge(scheme: "NTLM")]),
        (["Negotiate abc=, Basic realm=x"],
         [Challenge(scheme: "Negotiate", token68: "abc="), Challenge(scheme: "Basic", parameters: ["realm": "x"])]),
        // A scheme alone, several in a row, empty list elements.
        (["Basic"], [Challenge(scheme: "Basic")]),
        ([" , NTLM ,, Negotiate , "], [Challenge(scheme: "NTLM"), Challenge(scheme: "Negotiate")]),
        // BWS around "=", names without case, the first duplicate wins.
        (["Basic Realm = \"r\" , REALM=other"], [Challenge(scheme: "Basic", parameters: ["realm": "r"])]),
        // An empty quoted string and an empty value.
        (["Basic realm=\"\", x="], [Challenge(scheme: "Basic", parameters: ["realm": "", "x": ""])]),
        // Commas inside a quoted string.
        (["Digest qop=\"auth,auth-int\", realm=\"a, b\""],
         [Challenge(scheme: "Digest", parameters: ["qop": "auth,auth-int", "realm": "a, b"])]),
        // Junk is skipped up to the next comma.
        (["=x, Basic realm=r"], [Challenge(scheme: "Basic", parameters: ["realm": "r"])]),
        (["@@@, Basic"], [Challenge(scheme: "Basic")]),
        // An unterminated quoted string runs to the end.
        (["Basic realm=\"open"], [Challenge(scheme: "Basic", parameters: ["realm": "open"])]),
        ([""], []),
        ([], []),
    ] as [([String], [Challenge])])
    func parsesChallenges(_ fields: [String], _ challenges: [Challenge]) {
        #expect(Challenge.challenges(in: fields) == challenges, "\(fields)")
    }

    @Test func schemesCompareWithoutCase() throws {
        let challenge = try #require(Challenge.challenges(in: ["dIgEsT realm=\"r\""]).first)
        #expect(challenge.scheme == "dIgEsT")
        #expect(challenge.hasScheme("Digest"))
        #expect(!challenge.hasScheme("Basic"))
        #expect(challenge.realm == "r")
    }
}
