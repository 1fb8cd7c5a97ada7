import Foundation
@testable import FWURLSession
import Testing

@Suite struct URLAuthenticationChallengeSessionSenderTests {
    enum Call: String, CaseIterable, Sendable {
        case use, continueWithoutCredential, cancel, performDefaultHandling, rejectProtectionSpaceAndContinue

        var expected: URLSession.AuthChallengeDisposition {
            switch self {
            case .use, .continueWithoutCredential: .useCredential
            case .cancel: .cancelAuthenticationChallenge
            case .performDefaultHandling: .performDefaultHandling
            case .rejectProtectionSpaceAndContinue: .rejectProtectionSpace
            }
        }
    }

    static let credential = URLCredential(user: "ada", password: "secret", persistence: .none)

    static func challenge(_ sender: URLSessionAuthenticationChallengeSender) -> URLAuthenticationChallenge {
        let space = URLProtectionSpace(host: "h", port: 1, protocol: "https", realm: nil, authenticationMethod: nil)
        return URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil, previousFailureCount: 0,
                                          failureResponse: nil, error: nil, sender: sender)
    }

    static func make(_ call: Call, on challenge: URLAuthenticationChallenge) throws {
        let sender = try #require(challenge.sender)
        switch call {
        case .use: sender.use(credential, for: challenge)
        case .continueWithoutCredential: sender.continueWithoutCredential(for: challenge)
        case .cancel: sender.cancel(challenge)
        case .performDefaultHandling: sender.performDefaultHandling(for: challenge)
        case .rejectProtectionSpaceAndContinue: sender.rejectProtectionSpaceAndContinue(with: challenge)
        }
    }

    @Test(arguments: Call.allCases)
    func eachCallIsADisposition(_ call: Call) throws {
        let answers = ChallengeAnswers()
        try Self.make(call, on: Self.challenge(answers.makeSender()))

        let answer = try #require(answers.all.first)
        #expect(answers.all.count == 1)
        #expect(answer.disposition == call.expected)
        #expect(answer.credential === (call == .use ? Self.credential : nil))
    }

    @Test(arguments: Call.allCases)
    func onlyTheFirstAnswerCounts(_ call: Call) throws {
        let answers = ChallengeAnswers()
        let sender = answers.makeSender()
        let challenge = Self.challenge(sender)

        sender.answer(.performDefaultHandling, nil)
        try Self.make(call, on: challenge)
        sender.answer(.cancelAuthenticationChallenge, nil)

        #expect(answers.all.map(\.disposition) == [.performDefaultHandling])
    }

    @Test func concurrentAnswersDeliverExactlyOne() {
        let answers = ChallengeAnswers()
        let sender = answers.makeSender()
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            sender.answer(.useCredential, nil)
        }
        #expect(answers.all.count == 1)
    }

    @Test func sessionTaskIsTheTaskOfASessionsChallengeOnly() throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: try #require(URL(string: "https://127.0.0.1:9/")))
        let answers = ChallengeAnswers()
        let forTask = Self.challenge(URLSessionAuthenticationChallengeSender(task: task, completion: answers.handler))
        #expect(forTask.sessionTask === task)
        #expect(Self.challenge(answers.makeSender()).sessionTask == nil)
        let plainSender = URLSessionAuthenticationChallengeSender(completion: answers.handler)
        let copied = URLAuthenticationChallenge(authenticationChallenge: forTask, sender: plainSender)
        #expect(copied.sessionTask == nil)
    }
}
