import FWURLSession
import Testing

@Suite struct AuthChallengeDispositionTests {
    @Test(arguments: [
        (URLSession.AuthChallengeDisposition.useCredential, 0),
        (.performDefaultHandling, 1),
        (.cancelAuthenticationChallenge, 2),
        (.rejectProtectionSpace, 3),
    ])
    func rawValuesAreApples(_ disposition: URLSession.AuthChallengeDisposition, _ rawValue: Int) {
        #expect(disposition.rawValue == rawValue)
        #expect(URLSession.AuthChallengeDisposition(rawValue: rawValue) == disposition)
    }

    @Test func noOtherRawValue() {
        #expect(URLSession.AuthChallengeDisposition(rawValue: 4) == nil)
        #expect(URLSession.AuthChallengeDisposition(rawValue: -1) == nil)
    }
}
