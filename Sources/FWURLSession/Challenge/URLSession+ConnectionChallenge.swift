// Where connection-level challenges (server trust, client certificate) go, as on Apple platforms: to
// the session delegate's `urlSession(_:didReceive:completionHandler:)` when it implements it, otherwise
// to the task-level `urlSession(_:task:didReceive:completionHandler:)` of the delegate of the task the
// connection is being made for (the task's own delegate first, then the session delegate).
//
// Swift cannot ask whether a delegate implements a protocol method, so the rule is built into the
// default implementation of the session-level method: it forwards to the task-level method (whose own
// default answers `performDefaultHandling`). The task travels in the challenge's sender.

import Foundation
import FWTransport

// MARK: - Raising and forwarding

extension URLSession {
    /// The answer to a connection-level challenge.
    typealias ChallengeAnswer = @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void

    /// Raises a connection-level challenge for `space` on behalf of request `id` and calls `answer`
    /// exactly once. A session delegate gets the session-level method on the delegate queue; without
    /// one, the task's delegate gets the task-level method there; with neither, `answer` gets
    /// `performDefaultHandling` at once, on the calling thread.
    func raiseConnectionChallenge(_ space: URLProtectionSpace, for id: RequestID?, answer: @escaping ChallengeAnswer) {
        let task = task(for: id)
        let sender = URLSessionAuthenticationChallengeSender(task: task, completion: answer)
        let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil,
                                                   previousFailureCount: 0, failureResponse: nil, error: nil,
                                                   sender: sender)
        if let delegate {
            delegateQueue.addOperation {
                delegate.urlSession(self, didReceive: challenge, completionHandler: sender.answer)
            }
        } else if let task, let taskDelegate = task.delegate {
            delegateQueue.addOperation {
                taskDelegate.urlSession(self, task: task, didReceive: challenge, completionHandler: sender.answer)
            }
        } else {
            sender.answer(.performDefaultHandling, nil)
        }
    }

    /// What the session-level challenge method does when a delegate does not implement it: a
    /// connection-level challenge this session raised goes to the task-level method of the task's own
    /// delegate, else of `sessionDelegate` when it is a task delegate; any other challenge, or one
    /// without a task, gets `performDefaultHandling`.
    func forwardConnectionChallenge(_ challenge: URLAuthenticationChallenge,
                                    from sessionDelegate: any URLSessionDelegate,
                                    completionHandler: @escaping ChallengeAnswer) {
        guard let sender = challenge.sender as? URLSessionAuthenticationChallengeSender, let task = sender.task,
              let delegate = task.delegate ?? (sessionDelegate as? any URLSessionTaskDelegate)
        else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        delegate.urlSession(self, task: task, didReceive: challenge, completionHandler: completionHandler)
    }
}
