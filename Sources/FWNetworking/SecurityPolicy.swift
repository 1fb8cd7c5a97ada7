// SecurityPolicy: how a session manager judges a server's certificate chain (the seeds' FWSecurityPolicy,
// spelled as FWFramework's Swift port spells it). The rules that turn the settings into FWTLS evaluators
// are in SecurityPolicy+Evaluation.swift; loading pinned certificates from files is in
// SecurityPolicy+Certificates.swift.

import FWLoop
import FWTLS
import Foundation

// MARK: - SSLPinningMode

/// What a `SecurityPolicy` pins: nothing, the public keys of its pinned certificates, or the certificates.
public enum SSLPinningMode: Int, Sendable {
    /// No pinning: the chain is judged by the platform validation alone.
    case none = 0
    /// A certificate of the chain must carry the public key of a pinned certificate.
    case publicKey
    /// The chain must lead to a pinned certificate (compared by DER).
    case certificate
}

// MARK: - SecurityPolicy

/// Decides whether to trust a server's certificate chain: the platform validation, optionally relaxed
/// (`allowInvalidCertificates`, `validatesDomainName`), optionally narrowed by pinning.
///
/// Built on FWTLS's evaluators (`DefaultTrustEvaluator`, `PinnedCertificatesTrustEvaluator`,
/// `PublicKeysTrustEvaluator`, `DisabledTrustEvaluator`), applied to a challenge's trust through
/// `SecTrust.serverTrust`. Unlike AFNetworking's policy, which sets policies and anchors on the
/// trust it evaluates, it never changes how the trust it is given evaluates: it only records why it
/// refused one (`SecTrust.rejectionReason`). The settings may be read and changed
/// from any thread.
open class SecurityPolicy: NSObject, NSSecureCoding, NSCopying,
    @unchecked Sendable { // settings: in `rules`, a LockedBox
    /// The settings, and the pinned certificates decoded once.
    struct Rules: Sendable {
        var pinningMode: SSLPinningMode = .none
        var pinnedCertificates: Set<Data>?
        /// `pinnedCertificates` decoded; DER that does not decode is left out.
        var certificates: [Certificate] = []
        var allowInvalidCertificates = false
        var validatesDomainName = true
        /// SecurityPolicy+PinSets.swift.
        var pinSets: [PinSet] = []
        var pinViolationHandler: (@Sendable (PinViolationReport) -> Void)?
        var pinViolationReportUploader: PinViolationReportUploader? = .shared

        mutating func setPinnedCertificates(_ pinned: Set<Data>?) {
            pinnedCertificates = pinned
            certificates = (pinned ?? []).compactMap { try? Certificate(derBytes: Array($0)) }
        }
    }

    let rules = LockedBox(Rules())

    // MARK: Creating

    /// The default policy: no pinning, invalid certificates refused, the domain name validated; that
    /// is, the platform validation against the session's anchors.
    public static var `default`: SecurityPolicy {
        SecurityPolicy()
    }

    /// A policy with the default settings (see `default`).
    override public required init() {
        super.init()
    }

    /// A policy with `pinningMode` and the `.cer` certificates of the main bundle as its pins.
    public convenience init(pinningMode: SSLPinningMode) {
        self.init(pinningMode: pinningMode, pinnedCertificates: Self.certificates(in: .main))
    }

    /// A policy with `pinningMode` and `pinnedCertificates` (DER) as its pins.
    public convenience init(pinningMode: SSLPinningMode, pinnedCertificates: Set<Data>) {
        self.init()
        rules.withLock {
            $0.pinningMode = pinningMode
            $0.setPinnedCertificates(pinnedCertificates)
        }
    }

    // MARK: Settings

    /// What the policy pins (set when the policy is made).
    open var pinningMode: SSLPinningMode {
        rules.withLock { $0.pinningMode }
    }

    /// The pinned certificates, DER encoded. A pinning policy with none (nil or empty) trusts no server.
    open var pinnedCertificates: Set<Data>? {
        get { rules.withLock { $0.pinnedCertificates } }
        set { rules.withLock { $0.setPinnedCertificates(newValue) } }
    }

    /// Whether a chain that fails the platform validation (self-signed, expired, unknown root) may be
    /// trusted. False by default. With `.certificate` pinning the chain must still lead to a pinned
    /// certificate; with `validatesDomainName` and a domain, allowing invalid certificates without pins
    /// refuses every server.
    open var allowInvalidCertificates: Bool {
        get { rules.withLock { $0.allowInvalidCertificates } }
        set { rules.withLock { $0.allowInvalidCertificates = newValue } }
    }

    /// Whether the leaf must identify the domain being evaluated. True by default.
    open var validatesDomainName: Bool {
        get { rules.withLock { $0.validatesDomainName } }
        set { rules.withLock { $0.validatesDomainName = newValue } }
    }

    // MARK: Evaluating

    /// Whether to trust `serverTrust` for `domain` (the challenge's host; nil skips the domain check).
    ///
    /// AFNetworking's rules: without pinning, the platform validation decides unless
    /// `allowInvalidCertificates`; with pinning, the chain must also validate (unless invalid certificates
    /// are allowed) and then match a pin; a pinning policy without pins refuses. It calls
    /// `evaluate(_:forDomain:)`, which says why a server was refused: override that one to change the
    /// verdict for both.
    open func evaluateServerTrust(_ serverTrust: SecTrust, forDomain domain: String? = nil) -> Bool {
        do {
            try evaluate(serverTrust, forDomain: domain)
            return true
        } catch {
            return false
        }
    }

    /// FWNetworking addition: `evaluateServerTrust(_:forDomain:)` that throws why it refused, for a
    /// manager that fails the task with `URLError.serverCertificateUntrusted` and the reason. A refusal
    /// is also recorded in the trust's `rejectionReason`, so that answering the challenge with
    /// `rejectProtectionSpace` fails the task with that reason.
    open func evaluate(_ serverTrust: SecTrust, forDomain domain: String? = nil) throws(TrustError) {
        do throws(TrustError) {
            try rules.withLock { $0 }.evaluate(serverTrust.serverTrust, forDomain: domain)
        } catch {
            serverTrust.rejectionReason = error
            throw error
        }
    }

    // MARK: NSSecureCoding, NSCopying

    private enum Key {
        static let pinningMode = "pinningMode"
        static let pinnedCertificates = "pinnedCertificates"
        static let allowInvalidCertificates = "allowInvalidCertificates"
        static let validatesDomainName = "validatesDomainName"
    }

    /// True: a policy decodes only the types it encoded.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes the settings `encode(with:)` wrote (a missing flag keeps its default); nil for an unknown
    /// pinning mode.
    public required init?(coder: NSCoder) {
        guard let mode = SSLPinningMode(rawValue: coder.decodeInteger(forKey: Key.pinningMode)) else {
            return nil
        }
        let pinned = coder.containsValue(forKey: Key.pinnedCertificates)
            ? coder.decodeObject(of: [NSSet.self, NSData.self], forKey: Key.pinnedCertificates) as? Set<Data> : nil
        super.init()
        rules.withLock {
            $0.pinningMode = mode
            $0.setPinnedCertificates(pinned)
            $0.allowInvalidCertificates = coder.decodeBool(forKey: Key.allowInvalidCertificates)
            $0.validatesDomainName = !coder.containsValue(forKey: Key.validatesDomainName)
                || coder.decodeBool(forKey: Key.validatesDomainName)
        }
    }

    /// Encodes the pinning mode, the pinned certificates and the two flags.
    open func encode(with coder: NSCoder) {
        let rules = rules.withLock { $0 }
        coder.encode(rules.pinningMode.rawValue, forKey: Key.pinningMode)
        if let pinned = rules.pinnedCertificates {
            coder.encode(NSSet(set: pinned), forKey: Key.pinnedCertificates)
        }
        coder.encode(rules.allowInvalidCertificates, forKey: Key.allowInvalidCertificates)
        coder.encode(rules.validatesDomainName, forKey: Key.validatesDomainName)
    }

    /// A policy of the same class with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = type(of: self).init()
        let rules = rules.withLock { $0 }
        copy.rules.withLock { $0 = rules }
        return copy
    }
}
