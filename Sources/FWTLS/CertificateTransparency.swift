import CFWOpenSSL

// MARK: - CertificateTransparencyLogs

/// The Certificate Transparency logs SCTs are checked against, read from a log list file in OpenSSL's
/// format (`CTLOG_STORE_load_file`: `enabled_logs = a,b` and one `[a]` section per log with its
/// `description` and base64 DER public `key`).
public struct CertificateTransparencyLogs: Sendable {
    let handle: CTLogStoreHandle

    /// The logs of the file at `path`. Throws `TLSError.decodingFailed` when it cannot be read as a log list.
    public init(file path: String) throws(TLSError) {
        guard let store = fw_ctlog_store_load(path) else {
            throw TLSError.decodingFailed(reason: "\(path) is not a readable CT log list (OpenSSL's format)")
        }
        handle = CTLogStoreHandle(taking: store)
    }

    private init(handle: CTLogStoreHandle) {
        self.handle = handle
    }

    /// No log at all: every SCT validated against it is `unknown-log` (what a client without a log list
    /// can honestly say).
    static let empty: CertificateTransparencyLogs? = CTLOG_STORE_new().map {
        CertificateTransparencyLogs(handle: CTLogStoreHandle(taking: $0))
    }
}

/// One CTLOG_STORE, owned.
///
/// `@unchecked Sendable`: filled once when loaded, then only read by SCT validation.
final class CTLogStoreHandle: @unchecked Sendable { // never mutated after creation (see above)
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        fw_ctlog_store_free(pointer)
    }
}

// MARK: - SignedCertificateTimestamp

/// One SCT the server presented, and what validating it against the logs said.
public struct SignedCertificateTimestamp: Sendable, Hashable {
    /// What validation said.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// "valid", "invalid", "unknown-log", "unverified", "unknown-version", "not-set".
        public let name: String
        /// The log's signature over the certificate verifies.
        public static let valid = Status(name: "valid")
        /// The signature does not verify (or the timestamp is in the future).
        public static let invalid = Status(name: "invalid")
        /// No log of the list has this log ID.
        public static let unknownLog = Status(name: "unknown-log")
        /// It could not be checked (for an SCT inside the certificate: the issuer is not known).
        public static let unverified = Status(name: "unverified")
        /// An SCT version this client does not know.
        public static let unknownVersion = Status(name: "unknown-version")
        /// Not validated.
        public static let notSet = Status(name: "not-set")
        /// The name.
        public var description: String { name }

        private init(name: String) {
            self.name = name
        }

        init(openSSL value: Int32) {
            switch value {
            case 1: self = .unknownLog
            case 2: self = .valid
            case 3: self = .invalid
            case 4: self = .unverified
            case 5: self = .unknownVersion
            default: self = .notSet
            }
        }
    }

    /// The SHA-256 of the log's public key.
    public let logID: [UInt8]
    /// When the log saw the certificate, in milliseconds since 1970.
    public let timestampMilliseconds: Int64
    /// Where it came from: "tls-extension", "certificate", "ocsp" or "unknown".
    public let source: String
    /// What validation said.
    public let status: Status

    /// The log ID in base64, as log lists write it.
    public var logIDBase64: String { Base64.encode(logID) }

    /// How many SCTs a `ServerTrust.signedCertificateTimestampList` holds (0 for a malformed list).
    public static func count(inList list: [UInt8]) -> Int {
        var offset = 0
        var count = 0
        while offset + 3 <= list.count {
            offset += 3 + (Int(list[offset + 1]) << 8 | Int(list[offset + 2]))
            guard offset <= list.count else { return 0 }
            count += 1
        }
        return offset == list.count ? count : 0
    }
}

// MARK: - ServerTrust + Certificate Transparency

extension ServerTrust {
    /// The SCTs the server presented (TLS extension, certificate extension, stapled OCSP), each validated
    /// against `logs` at `effectiveTime`; empty when it presented none (ask for them with
    /// `TLSConfiguration.requestsSignedCertificateTimestamps`).
    public func signedCertificateTimestamps(validatedAgainst logs: CertificateTransparencyLogs)
        -> [SignedCertificateTimestamp] {
        guard let list = signedCertificateTimestampList, !list.isEmpty, let leaf = certificateChain.first else {
            return []
        }
        let issuer = certificateChain.dropFirst().first
            ?? anchors.certificates.first { $0.subjectText == leaf.issuerText }
        var results = [fw_sct_result](repeating: fw_sct_result(), count: 64)
        let count = list.withUnsafeBufferPointer { der in
            results.withUnsafeMutableBufferPointer { out in
                fw_sct_validate(der.baseAddress, der.count, leaf.handle.pointer, issuer?.handle.pointer,
                                logs.handle.pointer, effectiveTime * 1000, out.baseAddress, Int32(out.count))
            }
        }
        guard count > 0 else { return [] }
        return results.prefix(Int(min(count, 64))).map { result in
            var id = result.log_id
            let logID = withUnsafeBytes(of: &id) { Array($0) }
            let sources = [1: "tls-extension", 2: "certificate", 3: "ocsp"]
            return SignedCertificateTimestamp(
                logID: logID, timestampMilliseconds: result.timestamp_ms,
                source: sources[Int(result.source)] ?? "unknown", status: .init(openSSL: result.status)
            )
        }
    }
}

// MARK: - CertificateTransparencyTrustEvaluator

/// Requires valid SCTs from at least `minimumLogs` distinct logs of a log list (Chrome's and Apple's CT
/// policies count distinct logs), after the default validation unless told otherwise.
public struct CertificateTransparencyTrustEvaluator: TrustEvaluator {
    /// The logs SCTs are validated against.
    public let logs: CertificateTransparencyLogs
    /// How many distinct logs must have a valid SCT.
    public let minimumLogs: Int
    /// Whether the chain must also validate against the anchors.
    public let performDefaultValidation: Bool
    /// Whether the leaf must identify the host.
    public let validateHost: Bool

    /// An evaluator requiring `minimumLogs` (default 2) distinct logs.
    public init(
        logs: CertificateTransparencyLogs, minimumLogs: Int = 2, performDefaultValidation: Bool = true,
        validateHost: Bool = true
    ) {
        self.logs = logs
        self.minimumLogs = minimumLogs
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
    }

    /// The number of distinct logs with a valid SCT among `timestamps`.
    public static func validLogCount(_ timestamps: [SignedCertificateTimestamp]) -> Int {
        Set(timestamps.filter { $0.status == .valid }.map(\.logID)).count
    }

    /// Validates (as configured), then counts the distinct logs with a valid SCT.
    public func evaluate(_ trust: ServerTrust) throws(TrustError) {
        try trust.performValidation(defaultValidation: performDefaultValidation, validateHost: validateHost)
        let timestamps = trust.signedCertificateTimestamps(validatedAgainst: logs)
        let valid = Self.validLogCount(timestamps)
        guard valid >= minimumLogs else {
            let seen = timestamps.map { "\($0.logIDBase64): \($0.status)" }.joined(separator: ", ")
            throw TrustError.untrusted(
                reason: "Certificate Transparency: \(valid) of \(minimumLogs) required logs have a valid SCT for "
                    + "\(trust.host) (\(timestamps.isEmpty ? "no SCTs" : seen))"
            )
        }
    }
}
