import Foundation
@testable import FWURLSession
import Testing

@Suite struct URLAuthenticationChallengeTests {
    @Test func keepsWhatItWasMadeWith() throws {
        let space = URLProtectionSpace(host: "api.fw.test", port: 443, protocol: "https", realm: "users",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let credential = URLCredential(user: "ada", password: "secret", persistence: .forSession)
        let response = URLResponse(url: try #require(URL(string: "https://api.fw.test/")), mimeType: nil,
                                   expectedContentLength: 0, textEncodingName: nil)
        let error = URLError(.userAuthenticationRequired)
        let answers = ChallengeAnswers()
        let sender = answers.makeSender()

        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: credential, previousFailureCount: 2,
            failureResponse: response, error: error, sender: sender
        )

        #expect(challenge.protectionSpace === space)
        #expect(challenge.proposedCredential === credential)
        #expect(challenge.previousFailureCount == 2)
        #expect(challenge.failureResponse === response)
        #expect((challenge.error as? URLError)?.code == .userAuthenticationRequired)
        #expect(challenge.sender === sender)
    }

    @Test func aCopyKeepsEverythingButTheSender() throws {
        let space = URLProtectionSpace(host: "h", port: 1, protocol: "https", realm: nil, authenticationMethod: nil)
        let original = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 1, failureResponse: nil,
            error: nil, sender: ChallengeAnswers().makeSender()
        )
        let answers = ChallengeAnswers()
        let newSender = answers.makeSender()

        let copy = URLAuthenticationChallenge(authenticationChallenge: original, sender: newSender)

        #expect(copy.protectionSpace === space)
        #expect(copy.proposedCredential == nil)
        #expect(copy.previousFailureCount == 1)
        #expect(copy.failureResponse == nil)
        #expect(copy.error == nil)
        #expect(copy.sender === newSender)
        copy.sender?.cancel(copy)
        #expect(answers.all.map(\.disposition) == [.cancelAuthenticationChallenge])
    }
}
