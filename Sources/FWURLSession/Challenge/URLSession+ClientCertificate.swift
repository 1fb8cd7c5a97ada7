import Foundation
import FWTLS
import FWTransport

// MARK: - Client certificate challenges

extension URLSession {
    /// The transport's client-identity handler: an `NSURLAuthenticationMethodClientCertificate`
    /// challenge (host, port, and the `distinguishedNames` of the authorities the server accepts),
    /// raised as every connection-level challenge is (`DelegateRouter.raiseConnectionChallenge`).
    ///
    /// `useCredential` with `URLCredential(identity:certificates:persistence:)` sends that identity,
    /// with the credential's certificates as intermediates when it has any (else the identity's own,
    /// e.g. a PKCS#12's CA certificates); `useCredential` without an identity, `performDefaultHandling`
    /// and `rejectProtectionSpace` go on without a certificate (the server decides: a server that
    /// requires one fails the task with `clientCertificateRequired`); `cancelAuthenticationChallenge`
    /// fails it with `cancelled`.
    static func clientIdentityHandler(_ reference: SessionReference) -> ClientIdentityHandler {
        { key, requestID, authorities, decide in
            guard let session = reference.session else {
                decide(.continueWithoutIdentity)
                return
            }
            let space = URLProtectionSpace(clientCertificateRequestFrom: key.host, port: key.port,
                                           distinguishedNames: authorities.map { Data($0) })
            DelegateRouter.raiseConnectionChallenge(space, session: session, for: session.task(for: requestID)) { disposition, credential in
                decide(decision(disposition, credential))
            }
        }
    }

    private static func decision(_ disposition: AuthChallengeDisposition,
                                 _ credential: URLCredential?) -> ClientIdentityDecision {
        switch disposition {
        case .useCredential:
            guard let credential, let identity = credential.tlsIdentity else { return .continueWithoutIdentity }
            let intermediates = credential.intermediateCertificates
            return .use(intermediates.isEmpty ? identity : identity.replacingIntermediates(with: intermediates))
        case .performDefaultHandling, .rejectProtectionSpace:
            return .continueWithoutIdentity
        case .cancelAuthenticationChallenge:
            return .cancel
        }
    }
}
