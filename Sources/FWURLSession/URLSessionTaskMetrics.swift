import Foundation
import FWTransport

// MARK: - URLSessionTaskMetrics

/// What happened during a task: one transaction per request sent (one per redirect hop), and the
/// task's whole interval. Delivered by `urlSession(_:task:didFinishCollecting:)` before the completion.
/// FoundationNetworking declares these types but never fills them; FWNetworking does.
open class URLSessionTaskMetrics: NSObject, @unchecked Sendable { // immutable after init
    /// How a resource was obtained.
    public enum ResourceFetchType: Int, Sendable {
        case unknown = 0
        case networkLoad = 1
        case serverPush = 2
        case localCache = 3
    }

    /// The protocol used to resolve the host name.
    public enum DomainResolutionProtocol: Int, Sendable {
        case unknown = 0
        case udp = 1
        case tcp = 2
        case tls = 3
        case https = 4
    }

    /// One entry per request the task sent, in order.
    public let transactionMetrics: [URLSessionTaskTransactionMetrics]
    /// From the task's start (`resume()`) to its completion.
    public let taskInterval: DateInterval
    /// How many redirects the task followed.
    public let redirectCount: Int
    /// FWNetworking addition: a download that was continuing from a partial file (resume data or a background
    /// session's journal) had to start over from byte 0, because the server sent the whole resource instead
    /// of the range (its validator changed, or it ignored `Range`).
    public let restartedFromZero: Bool

    init(transactionMetrics: [URLSessionTaskTransactionMetrics], taskInterval: DateInterval, redirectCount: Int,
         restartedFromZero: Bool = false) {
        self.transactionMetrics = transactionMetrics
        self.taskInterval = taskInterval
        self.redirectCount = redirectCount
        self.restartedFromZero = restartedFromZero
        super.init()
    }
}

// MARK: - URLSessionTaskTransactionMetrics

/// The timings and sizes of one request/response exchange.
open class URLSessionTaskTransactionMetrics: NSObject, @unchecked Sendable { // immutable after init
    /// The request as sent.
    public let request: URLRequest
    /// The response, when one arrived.
    public let response: URLResponse?
    /// When the task began fetching this resource.
    public let fetchStartDate: Date?
    /// Name resolution, when this transaction opened the connection.
    public let domainLookupStartDate: Date?
    public let domainLookupEndDate: Date?
    /// The TCP connection, when this transaction opened it.
    public let connectStartDate: Date?
    public let connectEndDate: Date?
    /// The TLS handshake, when this transaction opened a TLS connection.
    public let secureConnectionStartDate: Date?
    public let secureConnectionEndDate: Date?
    /// Writing the request.
    public let requestStartDate: Date?
    public let requestEndDate: Date?
    /// Receiving the response: first byte, last byte.
    public let responseStartDate: Date?
    public let responseEndDate: Date?
    /// "http/1.1".
    public let networkProtocolName: String?
    /// Whether the request went through a proxy (the addresses are then the proxy's).
    public let isProxyConnection: Bool
    /// Whether the request went over a connection that carried an earlier request.
    public let isReusedConnection: Bool
    /// `.networkLoad`.
    public let resourceFetchType: URLSessionTaskMetrics.ResourceFetchType
    /// Bytes of the request head written.
    public let countOfRequestHeaderBytesSent: Int64
    /// Bytes of the request body written.
    public let countOfRequestBodyBytesSent: Int64
    /// Bytes of the request body before any content encoding (none is applied).
    public let countOfRequestBodyBytesBeforeEncoding: Int64
    /// Bytes of the response heads (interim ones included).
    public let countOfResponseHeaderBytesReceived: Int64
    /// Bytes of the response body as received (chunk framing included).
    public let countOfResponseBodyBytesReceived: Int64
    /// Bytes of the response body after decoding.
    public let countOfResponseBodyBytesAfterDecoding: Int64
    /// The connection's endpoints.
    public let localAddress: String?
    public let localPort: String?
    public let remoteAddress: String?
    public let remotePort: String?
    /// Link properties Linux does not report: always false.
    public let isCellular = false
    public let isExpensive = false
    public let isConstrained = false
    public let isMultipath = false
    /// `.unknown`: resolution goes through the system resolver.
    public let domainResolutionProtocol = URLSessionTaskMetrics.DomainResolutionProtocol.unknown
    /// The TLS version the connection negotiated; nil for plain HTTP.
    public let negotiatedTLSProtocolVersion: tls_protocol_version_t?
    /// The TLS cipher suite the connection negotiated; nil for plain HTTP, and for a suite
    /// `tls_ciphersuite_t` has no case for (`fwNegotiatedTLSCipherSuiteName` still names it).
    public let negotiatedTLSCipherSuite: tls_ciphersuite_t?

    // MARK: FWNetworking additions

    /// FWNetworking addition: whether the TLS handshake resumed a cached session (no certificate was
    /// exchanged; the server's trust was still evaluated). False for plain HTTP.
    public let fwIsTLSSessionResumed: Bool
    /// FWNetworking addition: OpenSSL's name of the negotiated cipher suite, as curl prints it
    /// ("TLS_AES_256_GCM_SHA384", "ECDHE-RSA-AES128-GCM-SHA256"); nil for plain HTTP.
    public let fwNegotiatedTLSCipherSuiteName: String?
    /// FWNetworking addition: the ALPN protocol the server selected ("http/1.1"), or nil when it
    /// selected none or the connection is plain HTTP.
    public let fwNegotiatedALPNProtocol: String?
    /// FWNetworking addition: the stable kebab-case names of the deviations from RFC 9112 the response
    /// needed to be accepted (`"bare-lf"`, `"obs-fold"`, ...; the table is in FWNetworking's DocC article
    /// Conformance), in a fixed order; empty for a response that kept to the grammar, and for a
    /// transaction without a response. `URLSessionConfiguration.httpRefusesDeviations` refuses them all.
    public let fwResponseDeviations: [String]
    /// FWNetworking addition: how many times this request was sent again on a new connection because the
    /// pipelined connection it had been written on closed (or broke) before its response began
    /// (`URLSessionConfiguration.httpShouldUsePipelining`); 0 without pipelining.
    public let fwPipelineReplayCount: Int
    /// FWNetworking addition: how many Certificate Transparency SCTs the server presented (TLS extension,
    /// certificate, stapled OCSP); 0 unless `tlsRequestsSignedCertificateTimestamps` asked for them.
    public let fwSignedCertificateTimestampCount: Int
    /// FWNetworking addition: what the connection's Certificate Transparency SCTs said under
    /// `tlsCertificateTransparencyPolicy`: each SCT's log ID, source ("tls-extension", "certificate",
    /// "ocsp") and status ("valid", "invalid", "unknown-log"; without a log list every SCT is
    /// "unknown-log"), the number of distinct logs with a valid SCT, and whether the policy was met. nil
    /// unless `tlsRequestsSignedCertificateTimestamps` asked for SCTs, and for plain HTTP.
    public let fwCertificateTransparency: CertificateTransparencyResult?

    /// A transaction from the transport's metrics of one attempt (nil: the request never reached a
    /// connection). `fetchType` is `.localCache` for a response the cache served without the network.
    init(request: URLRequest, response: URLResponse?, fetchStart: Date, transport: TransportMetrics?,
         clock: SessionClock, decodedBodyBytes: Int64, fetchType: URLSessionTaskMetrics.ResourceFetchType? = nil) {
        self.request = request
        self.response = response
        fetchStartDate = fetchStart
        domainLookupStartDate = clock.date(transport?.domainLookupStart)
        domainLookupEndDate = clock.date(transport?.domainLookupEnd)
        connectStartDate = clock.date(transport?.connectStart)
        connectEndDate = clock.date(transport?.connectEnd)
        secureConnectionStartDate = clock.date(transport?.secureConnectionStart)
        secureConnectionEndDate = clock.date(transport?.secureConnectionEnd)
        requestStartDate = clock.date(transport?.requestStart)
        requestEndDate = clock.date(transport?.requestEnd)
        responseStartDate = clock.date(transport?.responseStart)
        responseEndDate = clock.date(transport?.responseEnd)
        networkProtocolName = transport == nil ? nil : "http/1.1"
        isProxyConnection = transport?.isProxyConnection ?? false
        isReusedConnection = transport?.isReusedConnection ?? false
        resourceFetchType = fetchType ?? (transport == nil ? .unknown : .networkLoad)
        countOfRequestHeaderBytesSent = transport?.requestHeaderBytes ?? 0
        countOfRequestBodyBytesSent = transport?.requestBodyBytes ?? 0
        countOfRequestBodyBytesBeforeEncoding = transport?.requestBodyBytes ?? 0
        countOfResponseHeaderBytesReceived = transport?.responseHeaderBytes ?? 0
        countOfResponseBodyBytesReceived = transport?.responseBodyBytes ?? 0
        countOfResponseBodyBytesAfterDecoding = decodedBodyBytes
        localAddress = transport?.localAddress?.host
        localPort = transport?.localAddress.map { String($0.port) }
        remoteAddress = transport?.remoteAddress?.host
        remotePort = transport?.remoteAddress.map { String($0.port) }
        let tls = transport?.tls
        negotiatedTLSProtocolVersion = tls.flatMap { tls_protocol_version_t($0.version) }
        negotiatedTLSCipherSuite = tls.flatMap { tls_ciphersuite_t($0.cipherSuite) }
        fwIsTLSSessionResumed = tls?.isResumed ?? false
        fwNegotiatedTLSCipherSuiteName = tls?.cipherSuite.name
        fwNegotiatedALPNProtocol = tls?.alpn
        fwResponseDeviations = transport?.responseDeviations.names ?? []
        fwPipelineReplayCount = transport?.pipelineReplays ?? 0
        fwSignedCertificateTimestampCount = tls?.signedCertificateTimestampCount ?? 0
        fwCertificateTransparency = tls?.certificateTransparency
        super.init()
    }
}
