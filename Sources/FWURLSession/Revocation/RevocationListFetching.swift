import Foundation
import FWTLS

// MARK: - RevocationListFetching

/// FWNetworking addition: checks servers against the certificate revocation lists their own chain
/// names, fetched from its CRL distribution points (`URLSessionConfiguration.tlsRevocationListFetching`).
///
/// When a server's chain verifies, the http:// URIs of the distribution points of the certificates
/// `check` names are fetched (each at most `maximumSize` bytes, within `timeoutInterval`) through an
/// internal session of their own, which never checks revocation itself and never carries pins, and kept
/// in `cache` until the CRL's nextUpdate. The lists then serve the verification as curl's `--crlfile`
/// lists do (`RevocationListTrustEvaluator`): a revoked certificate refuses the server
/// (`URLError.serverCertificateUntrusted`, the `TrustError` under `NSUnderlyingErrorKey` answers
/// `isRevoked`), whatever the policy. Then the server-trust challenge is raised as usual.
///
/// What happens when a certificate cannot be checked (its CRL cannot be fetched, is larger than
/// `maximumSize`, is not a CRL, or it names no distribution point) is `failurePolicy`: `.softFail`
/// proceeds, `.hardFail` refuses with `serverCertificateUntrusted` and a reason naming the URI and why.
/// Every failed fetch is handed to `failureHandler` in both modes. A chain that does not verify is left
/// to the challenge (no fetch is made for it). Plain HTTP only: CRLs are signed by their issuer, and an
/// https:// distribution point would need the trust it is checking.
public struct RevocationListFetching: Sendable {
    /// What a certificate that cannot be checked does to the connection.
    public struct FailurePolicy: Sendable, Hashable {
        let refuses: Bool

        /// Proceed without the list, and report the failure to `failureHandler` (browsers' behaviour).
        public static let softFail = FailurePolicy(refuses: false)
        /// Refuse the server: a certificate no fetched list covers fails, as with curl's `--crlfile`.
        public static let hardFail = FailurePolicy(refuses: true)
    }

    /// Soft-fail (the default) or hard-fail.
    public var failurePolicy: FailurePolicy
    /// The certificates checked: the leaf (the default), or every certificate below the anchor.
    public var check: RevocationListCheck
    /// The largest CRL accepted, in bytes (default 1 MiB); a larger one is a failed fetch, and its
    /// download stops there.
    public var maximumSize: Int
    /// How long one fetch may take, in seconds (default 15).
    public var timeoutInterval: TimeInterval
    /// Where fetched lists are kept, by URI, until their nextUpdate. Copies of this value share it; give
    /// sessions that must not share lists their own.
    public var cache: RevocationListCache
    /// Hears every failed fetch (soft-fail and hard-fail alike), on an internal queue.
    public var failureHandler: (@Sendable (RevocationListFetchFailure) -> Void)?

    /// Fetching with the given policy, scope, bound and cache.
    public init(
        failurePolicy: FailurePolicy = .softFail, check: RevocationListCheck = .leaf, maximumSize: Int = 1 << 20,
        timeoutInterval: TimeInterval = 15, cache: RevocationListCache = RevocationListCache(),
        failureHandler: (@Sendable (RevocationListFetchFailure) -> Void)? = nil
    ) {
        self.failurePolicy = failurePolicy
        self.check = check
        self.maximumSize = maximumSize
        self.timeoutInterval = timeoutInterval
        self.cache = cache
        self.failureHandler = failureHandler
    }
}

// MARK: - RevocationListFetchFailure

/// A CRL distribution point that could not be used, as `RevocationListFetching.failureHandler` hears it.
public struct RevocationListFetchFailure: Sendable, CustomStringConvertible {
    /// The host of the connection being checked.
    public var host: String
    /// The distribution point's URI.
    public var uri: String
    /// Why: the transport error, the HTTP status, the size bound, or a body that is no CRL.
    public var reason: String

    /// "fetching URI (for HOST) failed: REASON".
    public var description: String { "fetching \(uri) (for \(host)) failed: \(reason)" }
}
