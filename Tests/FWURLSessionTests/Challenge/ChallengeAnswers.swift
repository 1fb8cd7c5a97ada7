import Foundation
@testable import FWURLSession

// MARK: - ChallengeAnswers

/// Records the answers given to a challenge's completion handler, from any thread.
///
/// `@unchecked Sendable`: `answers` is read and written only with `lock` held.
final class ChallengeAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [(URLSession.AuthChallengeDisposition, URLCredential?)] = []

    /// A completion handler that records what it is given.
    var handler: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void {
        { disposition, credential in
            self.lock.lock()
            defer { self.lock.unlock() }
            self.answers.append((disposition, credential))
        }
    }

    /// Every answer so far, in order.
    var all: [(disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?)] {
        lock.lock()
        defer { lock.unlock() }
        return answers.map { ($0.0, $0.1) }
    }

    /// A sender answering into this recorder, like the one a session gives its challenges.
    func makeSender() -> URLSessionAuthenticationChallengeSender {
        URLSessionAuthenticationChallengeSender(completion: handler)
    }
}
