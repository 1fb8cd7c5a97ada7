// MARK: - CertificateTransparencyPolicy

/// How a connection's Certificate Transparency SCTs are judged: the log list they are validated against
/// and how many distinct logs must have a valid SCT (Chrome's and Apple's policies count distinct logs).
///
/// Without a log list nothing can be verified, so every SCT is reported as `unknown-log` and the policy
/// is never met; nothing is invented valid. The judgement is only reported (`TLSEngine.certificateTransparency`,
/// the task's transaction metrics): to refuse a server, use `CertificateTransparencyTrustEvaluator`.
public struct CertificateTransparencyPolicy: Sendable {
    /// The logs SCTs are validated against; nil: none (every SCT is `unknown-log`).
    public var logs: CertificateTransparencyLogs?
    /// How many distinct logs must have a valid SCT for the policy to be met.
    public var minimumLogs: Int

    /// A policy validating against `logs` (default none) and requiring `minimumLogs` (default 2) logs.
    public init(logs: CertificateTransparencyLogs? = nil, minimumLogs: Int = 2) {
        self.logs = logs
        self.minimumLogs = minimumLogs
    }

    /// The SCTs of `trust` (TLS extension, certificate, stapled OCSP response), each validated against
    /// the logs at `trust.effectiveTime`, and whether they meet the policy.
    public func evaluate(_ trust: ServerTrust) -> CertificateTransparencyResult {
        let store = logs ?? CertificateTransparencyLogs.empty
        let timestamps = store.map { trust.signedCertificateTimestamps(validatedAgainst: $0) } ?? []
        return CertificateTransparencyResult(
            timestamps: timestamps, validLogCount: CertificateTransparencyTrustEvaluator.validLogCount(timestamps),
            minimumLogs: minimumLogs, hasLogList: logs != nil
        )
    }
}

// MARK: - CertificateTransparencyResult

/// What a connection's SCTs said under a `CertificateTransparencyPolicy`: each SCT (log ID, source,
/// status), the number of distinct logs with a valid one, and whether that met the policy.
public struct CertificateTransparencyResult: Sendable, Hashable {
    /// The SCTs the server presented, in the order OpenSSL collected them, each with its source
    /// ("tls-extension", "certificate", "ocsp") and status ("valid", "invalid", "unknown-log", ...).
    public var timestamps: [SignedCertificateTimestamp]
    /// How many distinct logs have a valid SCT among `timestamps`.
    public var validLogCount: Int
    /// The policy's `minimumLogs`.
    public var minimumLogs: Int
    /// Whether a log list was configured (without one every SCT is `unknown-log`).
    public var hasLogList: Bool

    /// A result, as `CertificateTransparencyPolicy.evaluate(_:)` makes it.
    public init(timestamps: [SignedCertificateTimestamp], validLogCount: Int, minimumLogs: Int, hasLogList: Bool) {
        self.timestamps = timestamps
        self.validLogCount = validLogCount
        self.minimumLogs = minimumLogs
        self.hasLogList = hasLogList
    }

    /// Whether valid SCTs came from at least `minimumLogs` distinct logs.
    public var isPolicyMet: Bool { validLogCount >= minimumLogs }
}

// MARK: - TLSEngine + Certificate Transparency

extension TLSEngine {
    /// The SCTs the server presented, judged by the configuration's `certificateTransparencyPolicy`, once
    /// the handshake has finished; nil when the configuration did not ask for SCTs
    /// (`requestsSignedCertificateTimestamps`) or before the handshake finished. A resumed session
    /// carries no SCTs.
    public var certificateTransparency: CertificateTransparencyResult? {
        guard context.configuration.requestsSignedCertificateTimestamps, negotiatedVersion != nil else { return nil }
        return context.configuration.certificateTransparencyPolicy.evaluate(makeServerTrust())
    }
}
