import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// Where a connection-level challenge goes: the default of the session-level delegate method forwards
// to the task-level method (task's own delegate first, then the session delegate), and
// `raiseConnectionChallenge` picks the session delegate, else the task's delegate, else answers itself.
@Suite struct URLSessionConnectionChallengeTests {
    // MARK: Delegates

    /// A session delegate with no challenge method: the protocol default runs.
    final class Silent: NSObject, URLSessionDelegate, @unchecked Sendable {} // no state

    /// Implements the task-level challenge method: records who was asked for which task, answers `answer`.
    final class TaskLevel: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // `log` is a LockedBox
        let name: String
        let answer: URLSession.AuthChallengeDisposition
        let log: LockedBox<[(name: String, task: URLSessionTask)]>

        init(_ name: String, answer: URLSession.AuthChallengeDisposition,
             log: LockedBox<[(name: String, task: URLSessionTask)]>) {
            self.name = name
            self.answer = answer
            self.log = log
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                            -> Void) {
            log.withLock { $0.append((name, task)) }
            completionHandler(answer, nil)
        }
    }

    /// Implements the session-level challenge method (and therefore never forwards).
    final class SessionLevel: NSObject, URLSessionDelegate, @unchecked Sendable { // `asked` is a LockedBox
        let asked = LockedBox(0)

        func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                            -> Void) {
            asked.withLock { $0 += 1 }
            completionHandler(.rejectProtectionSpace, nil)
        }
    }

    /// A sender that is not a session's.
    final class ForeignSender: NSObject, URLAuthenticationChallengeSender, @unchecked Sendable { // no state
        func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
        func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
        func cancel(_ challenge: URLAuthenticationChallenge) {}
        func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
        func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
    }

    // MARK: Helpers

    static func challenge(for task: URLSessionTask?, answers: ChallengeAnswers) -> URLAuthenticationChallenge {
        let space = URLProtectionSpace(host: "h", port: 443, protocol: "https", realm: nil,
                                       authenticationMethod: NSURLAuthenticationMethodServerTrust)
        let sender = URLSessionAuthenticationChallengeSender(task: task, completion: answers.handler)
        return URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil, previousFailureCount: 0,
                                          failureResponse: nil, error: nil, sender: sender)
    }

    enum Setup: String, CaseIterable, Sendable {
        case taskDelegateOnly, sessionTaskDelegateOnly, bothTaskDelegates, noTaskDelegate, noTask
    }

    // MARK: The default of the session-level method

    @Test(arguments: Setup.allCases)
    func theSessionLevelDefaultForwardsToTheTaskLevelMethod(_ setup: Setup) throws {
        let log = LockedBox<[(name: String, task: URLSessionTask)]>([])
        let sessionDelegate: any URLSessionDelegate = switch setup {
        case .sessionTaskDelegateOnly, .bothTaskDelegates: TaskLevel("session", answer: .useCredential, log: log)
        default: Silent()
        }
        let session = URLSession(configuration: .ephemeral, delegate: sessionDelegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "https://h/")!)
        if setup == .taskDelegateOnly || setup == .bothTaskDelegates {
            task.delegate = TaskLevel("task", answer: .cancelAuthenticationChallenge, log: log)
        }
        let answers = ChallengeAnswers()
        let challenge = Self.challenge(for: setup == .noTask ? nil : task, answers: answers)
        sessionDelegate.urlSession(session, didReceive: challenge, completionHandler: answers.handler)

        let expected: (name: String?, disposition: URLSession.AuthChallengeDisposition) = switch setup {
        case .taskDelegateOnly, .bothTaskDelegates: ("task", .cancelAuthenticationChallenge)
        case .sessionTaskDelegateOnly: ("session", .useCredential)
        case .noTaskDelegate, .noTask: (nil, .performDefaultHandling)
        }
        let asked = log.withLock { $0 }
        #expect(asked.map(\.name) == (expected.name.map { [$0] } ?? []))
        #expect(asked.allSatisfy { $0.task === task })
        #expect(answers.all.map(\.disposition) == [expected.disposition])
    }

    @Test func aChallengeFromAnotherSenderGetsDefaultHandling() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "https://h/")!)
        let log = LockedBox<[(name: String, task: URLSessionTask)]>([])
        task.delegate = TaskLevel("task", answer: .useCredential, log: log)
        let answers = ChallengeAnswers()
        let space = URLProtectionSpace(host: "h", port: 443, protocol: "https", realm: nil, authenticationMethod: nil)
        let foreign = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil,
                                                 previousFailureCount: 0, failureResponse: nil, error: nil,
                                                 sender: ForeignSender())
        Silent().urlSession(session, didReceive: foreign, completionHandler: answers.handler)
        #expect(answers.all.map(\.disposition) == [.performDefaultHandling])
        #expect(log.withLock { $0.isEmpty })
    }

    @Test func theTaskLevelDefaultIsDefaultHandling() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "https://h/")!)
        let answers = ChallengeAnswers()
        let delegate: any URLSessionTaskDelegate = RecordingDataDelegate()
        delegate.urlSession(session, task: task, didReceive: Self.challenge(for: task, answers: answers),
                            completionHandler: answers.handler)
        #expect(answers.all.map(\.disposition) == [.performDefaultHandling])
    }

    // MARK: Raising

    @Test func withNobodyToAskTheAnswerIsImmediateDefaultHandling() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let answers = ChallengeAnswers()
        let space = URLProtectionSpace(host: "h", port: 443, protocol: "https", realm: nil, authenticationMethod: nil)
        DelegateRouter.raiseConnectionChallenge(space, session: session, for: nil, answer: answers.handler)
        #expect(answers.all.map(\.disposition) == [.performDefaultHandling])
    }

    @Test func aSessionDelegateIsAskedOnTheDelegateQueue() {
        let delegate = SessionLevel()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: queue)
        defer { session.invalidateAndCancel() }
        let answers = ChallengeAnswers()
        let space = URLProtectionSpace(host: "h", port: 443, protocol: "https", realm: nil, authenticationMethod: nil)
        let onQueue = LockedBox<Bool?>(nil)
        DelegateRouter.raiseConnectionChallenge(space, session: session, for: nil) { disposition, credential in
            onQueue.withLock { $0 = OperationQueue.current === queue }
            answers.handler(disposition, credential)
        }
        #expect(waitUntil(timeout: 5) { !answers.all.isEmpty })
        #expect(answers.all.map(\.disposition) == [.rejectProtectionSpace])
        #expect(delegate.asked.withLock { $0 } == 1)
        #expect(onQueue.withLock { $0 } == true)
    }
}
