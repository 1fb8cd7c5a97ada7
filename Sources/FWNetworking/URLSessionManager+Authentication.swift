// URLSessionManager+Authentication: how the manager answers challenges (seed 000, "setAuthenticationChallengeHandler").
//
// Connection-level challenges (server trust, client certificate) reach the session-level method:
// `sessionDidReceiveAuthenticationChallenge` answers them when set, bypassing the security policy;
// otherwise the challenge goes to the task-level method of the task the connection is for (its own delegate
// when it has one, which falls back to this manager for what it does not implement), as URLSession does for
// a delegate without the session-level method.
//
// Task-level: `authenticationChallengeHandler` answers first with one of the four outcomes of
// `AuthenticationChallengeResult`; without it (or when it answers `.disposition(.performDefaultHandling)`),
// a server-trust challenge is judged by `securityPolicy`: a trusted server is answered with a credential
// for its trust; a refused one with `rejectProtectionSpace`, after the policy recorded why in the trust
// (`SecTrust.rejectionReason`). The task then fails with `URLError.serverCertificateUntrusted` carrying the
// failing URL, the peer trust and that reason (AFNetworking cancels the challenge and builds the -1202
// error itself; FWURLSession builds it from the rejection). Other challenges get default handling.

import Foundation

// MARK: - AuthenticationChallengeResult

extension URLSessionManager {
    /// What `authenticationChallengeHandler` answers: the four outcomes the seeds document, typed (the
    /// seeds return nil, an error, a credential or a number, and fail at run time on anything else).
    public enum AuthenticationChallengeResult: Sendable {
        /// The handler calls the completion handler it was given itself (the seeds' nil).
        case handled
        /// Cancels the challenge; `error` becomes the error the task's completion handler and
        /// `networkingTaskDidCompleteNotification` report (for a task a factory made).
        case error(any Error)
        /// Answers the challenge with this credential.
        case credential(URLCredential)
        /// Answers with this disposition and no credential. `.performDefaultHandling` for a server-trust
        /// challenge lets `securityPolicy` judge the trust; the seeds support `.performDefaultHandling`,
        /// `.cancelAuthenticationChallenge` and `.rejectProtectionSpace` (`.useCredential` without a
        /// credential validates the trust by default).
        case disposition(URLSession.AuthChallengeDisposition)
    }
}

// MARK: - Answering

extension URLSessionManager {
    typealias ChallengeAnswer = @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void

    /// The session-level method's work (see the file's opening comment).
    func answerSessionChallenge(_ challenge: URLAuthenticationChallenge, session: URLSession,
                                completionHandler: @escaping ChallengeAnswer) {
        if let block = blocks.withLock({ $0.sessionDidReceiveAuthenticationChallenge }) {
            var credential: URLCredential?
            let disposition = block(session, challenge, &credential)
            completionHandler(disposition, credential)
            return
        }
        guard let task = challenge.sessionTask else {
            answerWithPolicy(challenge, completionHandler: completionHandler)
            return
        }
        if let own = task.delegate, (own as AnyObject) !== self {
            own.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
        } else {
            urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
        }
    }

    /// The task-level method's work (see the file's opening comment).
    func answerTaskChallenge(_ challenge: URLAuthenticationChallenge, task: URLSessionTask, session: URLSession,
                             completionHandler: @escaping ChallengeAnswer) {
        guard let handler = blocks.withLock({ $0.authenticationChallengeHandler }) else {
            answerWithPolicy(challenge, completionHandler: completionHandler)
            return
        }
        switch handler(session, task, challenge, completionHandler) {
        case .handled:
            return
        case .error(let error):
            taskDelegate(for: task)?.end(with: error)
            completionHandler(.cancelAuthenticationChallenge, nil)
        case .credential(let credential):
            completionHandler(.useCredential, credential)
        case .disposition(.performDefaultHandling):
            answerWithPolicy(challenge, completionHandler: completionHandler)
        case .disposition(let disposition):
            completionHandler(disposition, nil)
        }
    }

    /// Server trust judged by `securityPolicy`; anything else gets default handling.
    private func answerWithPolicy(_ challenge: URLAuthenticationChallenge,
                                  completionHandler: @escaping ChallengeAnswer) {
        let space = challenge.protectionSpace
        guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        guard let trust = space.serverTrust else {
            completionHandler(.rejectProtectionSpace, nil)
            return
        }
        do {
            try securityPolicy.evaluate(trust, forDomain: space.host)
            completionHandler(.useCredential, URLCredential(trust: trust))
        } catch {
            completionHandler(.rejectProtectionSpace, nil)
        }
    }
}
