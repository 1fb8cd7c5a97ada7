import CFWOpenSSL

// MARK: - TLSVersion

/// A TLS protocol version, for the configuration's minimum and maximum.
public struct TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    let openSSLValue: Int32

    /// The version's name as OpenSSL reports a negotiated version, e.g. "TLSv1.3".
    public let name: String

    private init(_ openSSLValue: Int32, _ name: String) {
        self.openSSLValue = openSSLValue
        self.name = name
    }

    /// TLS 1.0 (refused by OpenSSL 3 at its default security level).
    public static let v1_0 = TLSVersion(FW_TLS1_VERSION, "TLSv1")
    /// TLS 1.1 (refused by OpenSSL 3 at its default security level).
    public static let v1_1 = TLSVersion(FW_TLS1_1_VERSION, "TLSv1.1")
    /// TLS 1.2, the default minimum.
    public static let v1_2 = TLSVersion(FW_TLS1_2_VERSION, "TLSv1.2")
    /// TLS 1.3, the default maximum.
    public static let v1_3 = TLSVersion(FW_TLS1_3_VERSION, "TLSv1.3")

    /// Orders by protocol number.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool {
        lhs.openSSLValue < rhs.openSSLValue
    }

    /// The version's name.
    public var description: String { name }
}

// MARK: - TLSConfiguration

/// How FWTLS connects: versions, trust roots, ALPN, client identity, OCSP stapling.
///
/// A value; a `TLSContext` is built from one and shared by every connection that uses it.
public struct TLSConfiguration: Sendable {
    /// The lowest protocol version offered (default TLS 1.2).
    public var minimumVersion: TLSVersion

    /// The highest protocol version offered (default TLS 1.3).
    public var maximumVersion: TLSVersion

    /// The anchors `ServerTrust`s of this configuration's connections are evaluated against.
    public var trustRoots: TrustRoots

    /// ALPN protocol names offered, in preference order (default ["http/1.1"]; empty: no ALPN).
    public var applicationProtocols: [String]

    /// A client identity sent whenever a server asks for one. When nil, a server's request surfaces as
    /// `TLSEngine.HandshakeState.clientIdentityRequested` so the owner can ask someone.
    public var clientIdentity: TLSIdentity?

    /// Whether to ask the server to staple an OCSP response (status_request).
    public var requestsOCSPStapling: Bool

    /// Whether to ask the server for Certificate Transparency SCTs (signed_certificate_timestamp; this
    /// also asks for an OCSP staple, which may carry SCTs). The handshake never fails on them: judge them
    /// with `CertificateTransparencyTrustEvaluator`. A resumed session brings no SCTs, so connections
    /// that ask for them never resume one (every handshake is a full one).
    public var requestsSignedCertificateTimestamps: Bool = false

    /// How the SCTs asked for are judged for `TLSEngine.certificateTransparency` (and the task metrics):
    /// the log list (default none: every SCT is `unknown-log`) and the distinct logs required.
    public var certificateTransparencyPolicy = CertificateTransparencyPolicy()

    /// Whether connections resume TLS sessions of earlier connections to the same host and port (default
    /// true; needs a `TLSContext` made with a session store). Off, every connection makes a full
    /// handshake (benchmarks, handshake experiments).
    public var resumesSessions: Bool

    /// A configuration; every parameter has the default a URLSession user expects.
    public init(
        minimumVersion: TLSVersion = .v1_2,
        maximumVersion: TLSVersion = .v1_3,
        trustRoots: TrustRoots = .system,
        applicationProtocols: [String] = ["http/1.1"],
        clientIdentity: TLSIdentity? = nil,
        requestsOCSPStapling: Bool = false,
        resumesSessions: Bool = true
    ) {
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.trustRoots = trustRoots
        self.applicationProtocols = applicationProtocols
        self.clientIdentity = clientIdentity
        self.requestsOCSPStapling = requestsOCSPStapling
        self.resumesSessions = resumesSessions
    }
}
