import FWLoop
import FWTLS

// MARK: - TransportMetrics

/// Timings and byte counts of one request on one connection, for `URLSessionTaskMetrics`. Times are
/// `uptimeNanoseconds` of the connection's loop clock (`EventLoop.now()`, the clock its timers follow, so a
/// test that moves a manual clock sees the times move with it); a time is nil when the phase did not happen
/// for this request (a reused connection has no lookup or connect).
public struct TransportMetrics: Sendable {
    /// Name resolution started / ended (new connections only).
    public var domainLookupStart: UInt64?
    public var domainLookupEnd: UInt64?
    /// The TCP connect of the address that won started / ended (new connections only).
    public var connectStart: UInt64?
    public var connectEnd: UInt64?
    /// The TLS handshake started / ended (new TLS connections only).
    public var secureConnectionStart: UInt64?
    public var secureConnectionEnd: UInt64?
    /// The first request byte was handed to the socket / the last one left.
    public var requestStart: UInt64?
    public var requestEnd: UInt64?
    /// The first response byte arrived / the response was complete.
    public var responseStart: UInt64?
    public var responseEnd: UInt64?
    /// Whether the connection carried a request before.
    public var isReusedConnection = false
    /// Whether the connection goes through a proxy (its addresses are then the proxy's).
    public var isProxyConnection = false
    /// The connection's local and remote addresses.
    public var localAddress: SocketAddressInfo?
    public var remoteAddress: SocketAddressInfo?
    /// Bytes of the request head and body that were written.
    public var requestHeaderBytes: Int64 = 0
    public var requestBodyBytes: Int64 = 0
    /// Bytes of the response head (interim responses included) and of the body as received (chunk
    /// framing included, before any content decoding).
    public var responseHeaderBytes: Int64 = 0
    public var responseBodyBytes: Int64 = 0
    /// The named deviations from RFC 9112 the response needed (CONFORMANCE.md; none for a strict one).
    public var responseDeviations = HTTPDeviations()
    /// How many times the request was replayed on a new connection because the pipelined connection it had
    /// been written on closed (or broke) before its response began; 0 without pipelining.
    public var pipelineReplays = 0
    /// What the connection's TLS handshake negotiated; nil for plain HTTP (and for a request that
    /// failed on a TLS connection before any response byte arrived, when the connection was reused).
    public var tls: TLSConnectionMetrics?
}

/// A numeric address and port. The text is made when read: most connections' addresses never are.
public struct SocketAddressInfo: Sendable, Hashable, CustomStringConvertible {
    let address: SocketAddress

    /// "127.0.0.1" or "::1".
    public var host: String { address.host }
    /// The port.
    public var port: Int { address.port }
    /// "127.0.0.1:80" or "[::1]:80".
    public var description: String { address.description }

    init(_ address: SocketAddress) {
        self.address = address
    }
}

// MARK: - TLSConnectionMetrics

/// What a TLS handshake negotiated: the facts `URLSessionTaskTransactionMetrics` and `curl -v` report.
public struct TLSConnectionMetrics: Sendable, Hashable {
    /// The protocol version, e.g. TLS 1.3.
    public var version: TLSVersion
    /// The cipher suite (IANA number and OpenSSL name).
    public var cipherSuite: TLSCipherSuite
    /// Whether the handshake resumed a cached session (abbreviated handshake, no certificate exchange).
    public var isResumed: Bool
    /// The ALPN protocol the server selected, or nil when it selected none.
    public var alpn: String?
    /// The Certificate Transparency SCTs the server presented, judged by the configuration's
    /// `certificateTransparencyPolicy`; nil when the configuration did not ask for SCTs.
    public var certificateTransparency: CertificateTransparencyResult?
    /// How many Certificate Transparency SCTs the server presented (when asked for them).
    public var signedCertificateTimestampCount: Int { certificateTransparency?.timestamps.count ?? 0 }
    /// The handshake messages in order ("> ClientHello", "< ServerHello", ...), when the connection recorded
    /// them (for a traced request's connection); empty otherwise.
    public var handshakeMessages: [String]

    /// Collects the facts of a finished handshake; nil before it has finished.
    init?(_ engine: TLSEngine) {
        guard let version = engine.negotiatedVersion, let cipherSuite = engine.cipherSuite else { return nil }
        self.version = version
        self.cipherSuite = cipherSuite
        self.isResumed = engine.isResumed
        self.alpn = engine.alpn
        self.certificateTransparency = engine.certificateTransparency
        self.handshakeMessages = engine.handshakeMessages.map(\.description)
    }
}
