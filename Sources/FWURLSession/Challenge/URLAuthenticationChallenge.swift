// URLAuthenticationChallenge and its sender protocol, source-compatible with FoundationNetworking's.
// Instances are immutable, so the class is `@unchecked Sendable` without a lock.

import Foundation

// MARK: - URLAuthenticationChallengeSender

/// The object a challenge is answered to (URLSession delegates answer through their completion handler
/// instead; calling the sender of a session's challenge has the same effect).
public protocol URLAuthenticationChallengeSender: NSObjectProtocol, Sendable {
    /// Answers with `credential`.
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge)
    /// Goes on without a credential.
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge)
    /// Cancels the challenge (the load fails with `URLError.cancelled`).
    func cancel(_ challenge: URLAuthenticationChallenge)
    /// Lets the system handle the challenge as if there were no delegate.
    func performDefaultHandling(for challenge: URLAuthenticationChallenge)
    /// Rejects this protection space; the next one, if any, is tried.
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge)
}

// MARK: - URLAuthenticationChallenge

/// A request for authentication: which protection space, the credential proposed, how often it failed
/// before, and whom to answer.
///
/// `@unchecked Sendable`: every stored property is a `let` (the error is the one the challenge was made
/// with and is only read).
open class URLAuthenticationChallenge: NSObject, @unchecked Sendable { // lets only
    private let space: URLProtectionSpace
    private let credential: URLCredential?
    private let failureCount: Int
    private let response: URLResponse?
    private let failure: (any Error)?
    private let challengeSender: any URLAuthenticationChallengeSender

    /// A challenge for `space`, with an optional proposed credential, the number of earlier failures,
    /// and the response and error of the last failure.
    public init(protectionSpace space: URLProtectionSpace, proposedCredential credential: URLCredential?,
                previousFailureCount: Int, failureResponse response: URLResponse?, error: (any Error)?,
                sender: any URLAuthenticationChallengeSender) {
        self.space = space
        self.credential = credential
        self.failureCount = previousFailureCount
        self.response = response
        self.failure = error
        self.challengeSender = sender
    }

    /// A copy of `challenge` answered to `sender` instead.
    public init(authenticationChallenge challenge: URLAuthenticationChallenge,
                sender: any URLAuthenticationChallengeSender) {
        self.space = challenge.protectionSpace
        self.credential = challenge.proposedCredential
        self.failureCount = challenge.previousFailureCount
        self.response = challenge.failureResponse
        self.failure = challenge.error
        self.challengeSender = sender
    }

    /// The protection space that requires authentication.
    open var protectionSpace: URLProtectionSpace { space }

    /// The credential to try, if any (from storage or the URL).
    open var proposedCredential: URLCredential? { credential }

    /// How many times authentication failed before for this space.
    open var previousFailureCount: Int { failureCount }

    /// The response of the last failure, if the protocol uses responses for that.
    open var failureResponse: URLResponse? { response }

    /// The error of the last failure, if the protocol uses errors for that.
    open var error: (any Error)? { failure }

    /// The object to answer.
    open var sender: (any URLAuthenticationChallengeSender)? { challengeSender }
}
