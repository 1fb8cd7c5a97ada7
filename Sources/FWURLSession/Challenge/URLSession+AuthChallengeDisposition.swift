// How a URLSession delegate answers an authentication challenge (FoundationNetworking's enum, with
// Apple's raw values).

import Foundation

// MARK: - AuthChallengeDisposition

extension URLSession {
    /// What to do with an authentication challenge, given to the challenge's completion handler.
    public enum AuthChallengeDisposition: Int, Sendable {
        /// Use the credential given with the disposition (nil: go on without one).
        case useCredential = 0
        /// Handle the challenge as if there were no delegate; the credential is ignored.
        case performDefaultHandling = 1
        /// Cancel the request; the credential is ignored.
        case cancelAuthenticationChallenge = 2
        /// Reject this protection space and try the next one; the credential is ignored.
        case rejectProtectionSpace = 3
    }
}
