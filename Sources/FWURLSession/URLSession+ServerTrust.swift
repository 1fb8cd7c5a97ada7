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
    /// The transport's trust handler: with a session delegate, a server-trust challenge on the delegate
    /// queue (`useCredential` with the challenge's trust accepts it, pinning included;
    /// `performDefaultHandling` validates against the configured roots; `cancelAuthenticationChallenge`
    /// cancels; `rejectProtectionSpace` refuses); without one, default handling on the loop.
    static func serverTrustHandler(_ reference: SessionReference) -> ServerTrustHandler {
        { serverTrust, key, decide in
            guard let session = reference.session, let delegate = session.delegate else {
                decide(defaultDecision(serverTrust))
                return
            }
            let trust = SecTrust(serverTrust: serverTrust)
            let space = URLProtectionSpace(serverTrust: trust, host: key.host, port: key.port)
            let sender = URLSessionAuthenticationChallengeSender { disposition, credential in
                switch disposition {
                case .useCredential:
                    if let accepted = credential?.trust {
                        decide(accepted === trust ? .trust : defaultDecision(accepted.serverTrust))
                    } else {
                        decide(defaultDecision(trust.serverTrust))
                    }
                case .performDefaultHandling:
                    decide(defaultDecision(trust.serverTrust))
                case .cancelAuthenticationChallenge:
                    decide(.cancel)
                case .rejectProtectionSpace:
                    decide(.reject(.untrusted(reason: "the delegate rejected the protection space")))
                }
            }
            let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil,
                                                       previousFailureCount: 0, failureResponse: nil, error: nil,
                                                       sender: sender)
            session.delegateQueue.addOperation {
                delegate.urlSession(session, didReceive: challenge, completionHandler: sender.answer)
            }
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
