import Foundation
import FWTLS
import FWTransport

// MARK: - Server trust challenges

/// Lets the transport's trust handler reach the session it was made for (which does not exist yet
/// when the transport is created). Weak, so the handler does not keep the session alive.
final class SessionReference: @unchecked Sendable { // `session` is set once, in URLSession.init, before any use
    weak var session: URLSession?
}

extension URLSession {
    /// The transport's trust handler: a server-trust challenge (`NSURLAuthenticationMethodServerTrust`,
    /// the peer chain in `protectionSpace.serverTrust`), raised as every connection-level challenge is
    /// (`DelegateRouter.raiseConnectionChallenge`: the session delegate, else the delegate of the task the connection
    /// is for). `useCredential` with the challenge's trust accepts it, pinning included (another trust
    /// is evaluated by default); `performDefaultHandling` validates against the configured roots;
    /// `cancelAuthenticationChallenge` cancels; `rejectProtectionSpace` refuses, with the reason the
    /// delegate put in the trust's `rejectionReason`. Nobody to ask: default handling on the loop thread.
    /// A refusal fails the connection with the peer trust inside the transport's error (`peerTrust`), which
    /// the task's `URLError` carries under `NSURLErrorFailingURLPeerTrustErrorKey` (`URLError+Transport.swift`).
    static func serverTrustHandler(_ reference: SessionReference) -> ServerTrustHandler {
        { serverTrust, key, requestID, decide in
            guard let session = reference.session else {
                decide(defaultDecision(serverTrust))
                return
            }
            session.challengeServerTrust(serverTrust, key: key, task: session.task(for: requestID), decide: decide)
        }
    }

    /// Raises the server-trust challenge of a connection to `key` made for `task` and calls `decide` with the
    /// answer. With `tlsRevocationListFetching`, the chain's CRLs are fetched first (`RevocationListFetcher`,
    /// asynchronous): a refusal there answers without a challenge.
    func challengeServerTrust(_ serverTrust: ServerTrust, key: ConnectionKey, task: URLSessionTask?,
                              decide: @escaping @Sendable (ServerTrustDecision) -> Void) {
        guard let fetching = sessionConfiguration.tlsRevocationListFetching else {
            raiseServerTrustChallenge(serverTrust, key: key, task: task, decide: decide)
            return
        }
        RevocationListFetcher(fetching: fetching, parent: sessionConfiguration).check(serverTrust) { [weak self] in
            switch $0 {
            case .refuse(let error):
                decide(.reject(error))
            case .proceed:
                guard let self else { return decide(Self.defaultDecision(serverTrust)) }
                self.raiseServerTrustChallenge(serverTrust, key: key, task: task, decide: decide)
            }
        }
    }

    private func raiseServerTrustChallenge(_ serverTrust: ServerTrust, key: ConnectionKey, task: URLSessionTask?,
                                           decide: @escaping @Sendable (ServerTrustDecision) -> Void) {
        let trust = SecTrust(serverTrust: serverTrust)
        let space = URLProtectionSpace(serverTrust: trust, host: key.host, port: key.port)
        DelegateRouter.raiseConnectionChallenge(space, session: self, for: task) { disposition, credential in
            decide(Self.decision(disposition, credential, for: trust))
        }
    }

    private static func decision(_ disposition: AuthChallengeDisposition, _ credential: URLCredential?,
                                 for trust: SecTrust) -> ServerTrustDecision {
        switch disposition {
        case .useCredential:
            guard let accepted = credential?.trust else { return defaultDecision(trust.serverTrust) }
            return accepted === trust ? .trust : defaultDecision(accepted.serverTrust)
        case .performDefaultHandling:
            return defaultDecision(trust.serverTrust)
        case .cancelAuthenticationChallenge:
            return .cancel
        case .rejectProtectionSpace:
            // A delegate's refusal is -1202 whatever its reason (as on Apple platforms), so the reason
            // travels as text in an `untrusted` error rather than as its own kind.
            let reason = trust.rejectionReason?.reason ?? "the delegate rejected the protection space"
            return .reject(.untrusted(reason: reason))
        }
    }

    private static func defaultDecision(_ trust: ServerTrust) -> ServerTrustDecision {
        do throws(TrustError) {
            try DefaultTrustEvaluator().evaluate(trust)
            return .trust
        } catch {
            return .reject(error)
        }
    }
}
