// The sender of the challenges a URLSession raises: it turns the URLAuthenticationChallengeSender calls
// into the dispositions a delegate's completion handler takes, so both ways of answering work. It also
// carries the task a connection-level challenge was raised for, so that the default implementation of
// the session-level delegate method can hand the challenge to that task's delegate.

import Foundation
import FWTransport

// MARK: - URLSessionAuthenticationChallengeSender

/// The sender of the challenges a session raises: each call answers the challenge's completion handler
/// with the matching disposition. Only the first answer counts (from the sender or the handler the
/// delegate was given, whichever comes first); later ones are ignored.
///
/// `@unchecked Sendable` (NSObject): `completion` is a `LockedBox`; `task` is a `let`.
final class URLSessionAuthenticationChallengeSender: NSObject, URLAuthenticationChallengeSender,
    @unchecked Sendable { // completion: LockedBox; task: let
    typealias Completion = @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void

    private let completion: LockedBox<Completion?>

    /// The task the challenge was raised for: for a connection-level challenge, the task whose request
    /// the connection is being made for; nil when no task waits for it any more.
    let task: URLSessionTask?

    /// A sender answering `completion` once, for a challenge raised for `task`.
    init(task: URLSessionTask? = nil, completion: @escaping Completion) {
        self.task = task
        self.completion = LockedBox(completion)
    }

    /// Delivers the first answer to the completion and drops the later ones; what to give the
    /// delegate as its completion handler.
    func answer(_ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?) {
        let pending = completion.withLock { completion in
            defer { completion = nil }
            return completion
        }
        pending?(disposition, credential)
    }

    /// Answers `useCredential` with `credential`.
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {
        answer(.useCredential, credential)
    }

    /// Answers `useCredential` without a credential.
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {
        answer(.useCredential, nil)
    }

    /// Answers `cancelAuthenticationChallenge`.
    func cancel(_ challenge: URLAuthenticationChallenge) {
        answer(.cancelAuthenticationChallenge, nil)
    }

    /// Answers `performDefaultHandling`.
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {
        answer(.performDefaultHandling, nil)
    }

    /// Answers `rejectProtectionSpace`.
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {
        answer(.rejectProtectionSpace, nil)
    }
}

// MARK: - The task of a connection-level challenge

extension URLAuthenticationChallenge {
    /// FWNetworking addition: for a connection-level challenge a session raised (server trust, client
    /// certificate), the task the connection is being made for; nil for any other challenge, or when no
    /// task waits for the connection any more.
    ///
    /// A session delegate that implements `urlSession(_:didReceive:completionHandler:)` gets every
    /// connection-level challenge there; with this it can still hand one to the task-level method of
    /// that task's delegate, as the default implementation does.
    public var sessionTask: URLSessionTask? {
        (sender as? URLSessionAuthenticationChallengeSender)?.task
    }
}
