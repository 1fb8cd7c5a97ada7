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
    /// `cancelAuthenticationChallenge` cancels; `rejectProtectionSpace` refuses. Nobody to ask: default
    /// handling on the loop thread.
    static func serverTrustHandler(_ reference: SessionReference) -> ServerTrustHandler {
        { serverTrust, key, requestID, decide in
            guard let session = reference.session else {
                decide(defaultDecision(serverTrust))
                return
            }
            let trust = SecTrust(serverTrust: serverTrust)
            let space = URLProtectionSpace(serverTrust: trust, host: key.host, port: key.port)
            DelegateRouter.raiseConnectionChallenge(space, session: session, for: session.task(for: requestID)) { disposition, credential in
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
