// Security's trust object over FWTLS's `ServerTrust`. The public SecTrust... functions are in
// SecTrust+Functions.swift; this file holds the object, its settings and the evaluation.
//
// A SecTrust starts from a ServerTrust (the peer chain, the host, the configuration's anchors, the
// stapled OCSP response) and keeps what the user changes through the SecTrustSet... functions:
//
// - Policies. A connection's trust starts with an SSL server policy for its host. Evaluation runs
//   FWTLS's DefaultTrustEvaluator once per policy: with the hostname check when the policy names a
//   host (SSL server), chain only otherwise (SSL without a host, SSL client, basic X.509, no policy).
// - Anchors, with Apple's rules: SecTrustSetAnchorCertificates(array) makes the array the only
//   anchors; SecTrustSetAnchorCertificatesOnly(false) afterwards adds the default anchors back (the
//   ServerTrust's: the system store or the session's configured roots); SecTrustSetAnchorCertificates
//   (nil) restores the default anchors alone.
// - A stapled OCSP response that says "revoked" fails the evaluation, as Apple's SSL policy does.

import FWTLS
import FWTransport
import Foundation

// MARK: - SecTrust

/// A trust evaluation: certificates, policies and anchors (Security's SecTrust).
///
/// Sendable: `settings` is a `LockedBox`; `base` is immutable.
public final class SecTrust: Sendable, CustomStringConvertible {
    private struct Settings {
        var policies: [SecPolicy]
        /// The anchors given to SecTrustSetAnchorCertificates; nil for the default anchors.
        var customAnchors: [Certificate]?
        /// True when only `customAnchors` are trusted, false when the default anchors are trusted too.
        var anchorsOnly: Bool
        /// Why a delegate refused this trust (FWNetworking addition).
        var rejectionReason: TrustError?
    }

    /// The chain, host, default anchors, time and stapled response as given at creation.
    private let base: ServerTrust
    private let settings: LockedBox<Settings>

    /// The trust of a TLS connection, as URLSession hands it to a delegate: the peer chain, an SSL
    /// server policy for `serverTrust.host`, and `serverTrust.anchors` as the default anchors.
    init(serverTrust: ServerTrust) {
        self.base = serverTrust
        self.settings = LockedBox(Settings(
            policies: [.ssl(server: true, hostname: serverTrust.host)], customAnchors: nil, anchorsOnly: false
        ))
    }

    /// A trust over `certificates` (leaf first) with `policies`, anchored in the system store.
    init(certificates: [Certificate], policies: [SecPolicy]) {
        self.base = ServerTrust(certificateChain: certificates, host: "", anchors: .system)
        self.settings = LockedBox(Settings(policies: policies, customAnchors: nil, anchorsOnly: false))
    }

    /// The certificates count and the host checked.
    public var description: String {
        let trust = serverTrust
        return "<SecTrust \(trust.certificateChain.count) certificates, host \(trust.host), \(trust.anchors)>"
    }

    // MARK: Settings

    private func withSettings<R>(_ body: (inout Settings) -> R) -> R {
        settings.withLock(body)
    }

    /// SecTrustSetAnchorCertificates: `anchors` become the only anchors; nil restores the defaults.
    func setAnchorCertificates(_ anchors: [Certificate]?) {
        withSettings {
            $0.customAnchors = anchors
            $0.anchorsOnly = anchors != nil
        }
    }

    /// SecTrustSetAnchorCertificatesOnly.
    func setAnchorCertificatesOnly(_ anchorsOnly: Bool) {
        withSettings { $0.anchorsOnly = anchorsOnly }
    }

    /// SecTrustSetPolicies.
    func setPolicies(_ policies: [SecPolicy]) {
        withSettings { $0.policies = policies }
    }

    // MARK: The FWTLS bridge

    /// FWNetworking addition: this trust as the FWTLS value its evaluation uses, so that any FWTLS
    /// `TrustEvaluator` (pinning, SPKI hashes, composites) can judge a challenge's trust.
    ///
    /// The value holds the peer chain, the stapled OCSP response, the anchors after the user's
    /// SecTrustSetAnchorCertificates / SecTrustSetAnchorCertificatesOnly (by default the session's
    /// `tlsTrustRoots`), and the host of the first policy that names one (else the connection's host).
    /// It is a copy: changing it does not change this trust.
    public var serverTrust: ServerTrust {
        serverTrust(with: withSettings { $0 })
    }

    // MARK: Refusing with a reason

    /// FWNetworking addition: why this trust was refused, for a delegate that answers a server-trust
    /// challenge with `rejectProtectionSpace`. The task then fails with
    /// `URLError.serverCertificateUntrusted` (-1202, as on Apple platforms for a trust a delegate
    /// refused, whatever the reason) whose description and `NSUnderlyingErrorKey` carry this reason;
    /// without one they say that the delegate rejected the protection space.
    /// `SecurityPolicy.evaluate(_:forDomain:)` sets it when it refuses.
    public var rejectionReason: TrustError? {
        get { withSettings { $0.rejectionReason } }
        set { withSettings { $0.rejectionReason = newValue } }
    }

    // MARK: For the session layer

    /// Evaluates with the current anchors and policies; throws why the trust fails.
    func evaluate() throws(TrustError) {
        let settings = withSettings { $0 }
        let trust = serverTrust(with: settings)
        let hosts: [String?] = settings.policies.isEmpty ? [nil] : settings.policies.map(\.hostname)
        for host in hosts {
            var checked = trust
            if let host { checked.host = host }
            try DefaultTrustEvaluator(validateHost: host != nil).evaluate(checked)
        }
        if trust.stapledOCSPResponse != nil {
            try RevocationTrustEvaluator(performDefaultValidation: false, validateHost: false).evaluate(trust)
        }
    }

    /// The chain as Apple reports it after evaluation: the certificates as given, followed by the
    /// custom anchor that issued the last of them when that anchor validates the chain. (System anchors
    /// are not enumerable through FWTLS, so a chain that ends in one is reported as given.)
    var evaluatedChain: [Certificate] {
        let trust = serverTrust
        var chain = trust.certificateChain
        guard let last = chain.last, !last.isSelfSigned, !trust.anchors.certificates.contains(last) else {
            return chain
        }
        for anchor in trust.anchors.certificates where anchor.subjectText == last.issuerText {
            var probe = trust
            probe.anchors = .certificates([anchor])
            if (try? probe.validateChain()) != nil {
                chain.append(anchor)
                break
            }
        }
        return chain
    }

    // MARK: Building the ServerTrust

    private func serverTrust(with settings: Settings) -> ServerTrust {
        var trust = base
        trust.anchors = anchors(with: settings)
        if let host = settings.policies.lazy.compactMap(\.hostname).first {
            trust.host = host
        }
        return trust
    }

    private func anchors(with settings: Settings) -> TrustRoots {
        let custom = settings.customAnchors ?? []
        if settings.anchorsOnly { return .certificates(custom) }
        if custom.isEmpty { return base.anchors }
        return .certificates(
            custom + base.anchors.certificates, includingSystemRoots: base.anchors.includesSystemRoots
        )
    }
}
