// URLSessionConfiguration.swift
//
// Session configuration, source-compatible with FoundationNetworking's `URLSessionConfiguration`, with
// the same defaults. FoundationNetworking's class is not thread-safe; ours keeps every property in one
// `Storage` value behind a lock, so a configuration may be read and written from any thread.
//
// `ephemeral` differs from `default` in its cookie and credential storages (new, in memory) and its URL
// cache (a new memory-only one instead of `URLCache.shared`). `background(withIdentifier:)` gives a durable
// session (Background/DurableSession.swift). `multipathServiceType` is not provided (FoundationNetworking
// marks it unavailable on Linux).

import Foundation
import FWTLS
import FWTransport

/// The options a `URLSession` is created with (FoundationNetworking's `URLSessionConfiguration`).
///
/// A session copies its configuration when it is created, so changing a configuration afterwards does not
/// affect the session. `@unchecked Sendable` (an open class cannot be checked): its stored properties are a
/// `LockedBox` and, for a session's own copy, a constant.
open class URLSessionConfiguration: NSObject, NSCopying, @unchecked Sendable { // storage: LockedBox; frozen: let
    // MARK: Storage (every property and its default, and its frozen form: URLSessionConfiguration+Storage.swift)

    /// The configuration's properties.
    private let storage: LockedBox<Storage>
    /// A session's own copy (`frozenCopy`): the same properties, which never change, read without the lock.
    /// A request reads about 14 of them; through the lock each read cost a lock and an unlock.
    private let frozen: Frozen?

    // MARK: Creation

    /// Creates a configuration with the given properties; `frozen`: they never change.
    private init(storage: Storage, frozen: Bool = false) {
        self.storage = LockedBox(storage)
        self.frozen = frozen ? Frozen(storage) : nil
        super.init()
    }

    /// Creates a default configuration. Deprecated as in FoundationNetworking: use `.default`.
    @available(*, deprecated, message: "Use .default instead.", renamed: "URLSessionConfiguration.default")
    public override init() {
        storage = LockedBox(Storage())
        frozen = nil
        super.init()
    }

    /// A new default configuration (each access returns a new instance).
    open class var `default`: URLSessionConfiguration {
        URLSessionConfiguration(storage: Storage())
    }

    /// A new configuration for a session that keeps nothing on disk (each access returns a new instance):
    /// its cookie and credential storages and its URL cache are new, in-memory ones.
    open class var ephemeral: URLSessionConfiguration {
        var storage = Storage()
        storage.httpCookieStorage = .ephemeral()
        storage.urlCredentialStorage = URLCredentialStorage()
        storage.urlCache = URLCache.makeEphemeral()
        return URLSessionConfiguration(storage: storage)
    }

    /// A new configuration for a durable session (each call returns a new instance): its download and
    /// upload-from-file tasks are journaled under a directory of `identifier`, and a later process that
    /// creates a session with the same identifier and a delegate gets the unfinished ones back and sees them
    /// continue (`Range` + `If-Range`). One live process per identifier (a lock file). See the DocC article
    /// "Downloads that survive the process".
    open class func background(withIdentifier identifier: String) -> URLSessionConfiguration {
        var storage = Storage()
        storage.identifier = identifier
        return URLSessionConfiguration(storage: storage)
    }

    /// FWNetworking addition: where a background session keeps its journal and partial files. nil (the
    /// default): `$XDG_CACHE_HOME/fwnetworking/background/<identifier>`, else
    /// `~/.cache/fwnetworking/background/<identifier>`. Used as given (the identifier is not appended).
    /// Archived with the configuration (`NSSecureCoding`), as its absolute path.
    open var backgroundSessionDirectory: URL? {
        get { read { $0.backgroundSessionDirectory } }
        set { write { $0.backgroundSessionDirectory = newValue } }
    }

    // MARK: NSSecureCoding (URLSessionConfiguration+Coding.swift)

    /// Decodes a configuration that `encode(with:)` archived; a property the archive lacks keeps its
    /// default. Nil when a value in the archive has the wrong type or an unknown raw value.
    public required convenience init?(coder: NSCoder) {
        self.init(storage: Storage())
        guard decodeProperties(from: coder) else { return nil }
    }

    // MARK: NSCopying

    /// A new configuration with the same value for every property.
    open func copy(with zone: NSZone? = nil) -> Any {
        URLSessionConfiguration(storage: storage.withLock { $0 })
    }

    /// A new configuration with the same value for every property.
    open override func copy() -> Any {
        copy(with: nil)
    }

    // MARK: Identity and policy

    /// The identifier of a background session configuration; `nil` by default.
    open var identifier: String? {
        get { read { $0.identifier } }
        set { write { $0.identifier = newValue } }
    }

    /// The cache policy for requests of the session; `.useProtocolCachePolicy` by default.
    open var requestCachePolicy: URLRequest.CachePolicy {
        get { read { $0.requestCachePolicy } }
        set { write { $0.requestCachePolicy = newValue } }
    }

    /// The idle timeout of a request in seconds, unless the request sets its own; 60 by default.
    open var timeoutIntervalForRequest: TimeInterval {
        get { read { $0.timeoutIntervalForRequest } }
        set { write { $0.timeoutIntervalForRequest = newValue } }
    }

    /// The longest a whole resource load may take, in seconds; 604800 (7 days) by default.
    open var timeoutIntervalForResource: TimeInterval {
        get { read { $0.timeoutIntervalForResource } }
        set { write { $0.timeoutIntervalForResource = newValue } }
    }

    /// The network service type of the session's requests; `.default` by default.
    open var networkServiceType: URLRequest.NetworkServiceType {
        get { read { $0.networkServiceType } }
        set { write { $0.networkServiceType = newValue } }
    }

    // MARK: Network access

    /// Whether requests may use a cellular interface; `true` by default.
    open var allowsCellularAccess: Bool {
        get { read { $0.allowsCellularAccess } }
        set { write { $0.allowsCellularAccess = newValue } }
    }

    /// Whether requests may use an interface the system considers expensive; `true` by default.
    open var allowsExpensiveNetworkAccess: Bool {
        get { read { $0.allowsExpensiveNetworkAccess } }
        set { write { $0.allowsExpensiveNetworkAccess = newValue } }
    }

    /// Whether requests may use an interface in low-data (constrained) mode; `true` by default.
    open var allowsConstrainedNetworkAccess: Bool {
        get { read { $0.allowsConstrainedNetworkAccess } }
        set { write { $0.allowsConstrainedNetworkAccess = newValue } }
    }

    /// Whether tasks wait for connectivity instead of failing at once; `false` by default.
    open var waitsForConnectivity: Bool {
        get { read { $0.waitsForConnectivity } }
        set { write { $0.waitsForConnectivity = newValue } }
    }

    /// Whether background transfers may be scheduled at the system's discretion; `false` by default.
    open var isDiscretionary: Bool {
        get { read { $0.isDiscretionary } }
        set { write { $0.isDiscretionary = newValue } }
    }

    /// The shared container background downloads go to; `nil` by default.
    open var sharedContainerIdentifier: String? {
        get { read { $0.sharedContainerIdentifier } }
        set { write { $0.sharedContainerIdentifier = newValue } }
    }

    /// Whether the app is resumed or launched when background tasks finish; `true` by default.
    open var sessionSendsLaunchEvents: Bool {
        get { read { $0.sessionSendsLaunchEvents } }
        set { write { $0.sessionSendsLaunchEvents = newValue } }
    }

    /// The proxy settings dictionary (CFNetwork's keys); `nil` by default.
    open var connectionProxyDictionary: [AnyHashable: Any]? {
        get { read { $0.connectionProxyDictionary } }
        set { write { $0.connectionProxyDictionary = newValue } }
    }

    /// Whether sockets are kept open for longer when the process moves to the background; `false` by default.
    open var shouldUseExtendedBackgroundIdleMode: Bool {
        get { read { $0.shouldUseExtendedBackgroundIdleMode } }
        set { write { $0.shouldUseExtendedBackgroundIdleMode = newValue } }
    }

    // MARK: HTTP

    /// Whether the session may pipeline HTTP/1.1 requests; `false` by default. When true, a GET or HEAD
    /// without a body whose `URLRequest.httpShouldUsePipelining` is also true (its default) may be written on a
    /// connection behind other such requests before their responses came, up to `httpPipeliningDepth` at
    /// once; responses are matched in order. Requests that were written but not answered when the server
    /// closed the connection are sent again on a new one
    /// (`URLSessionTaskTransactionMetrics.fwPipelineReplayCount`). Other methods, requests with a body and
    /// requests that say `Connection: close` never join a pipeline.
    open var httpShouldUsePipelining: Bool {
        get { read { $0.httpShouldUsePipelining } }
        set { write { $0.httpShouldUsePipelining = newValue } }
    }

    /// FWNetworking addition: the most requests one connection carries at once when
    /// `httpShouldUsePipelining` is true; 4 by default (values below 1 count as 1, which is no pipelining).
    open var httpPipeliningDepth: Int {
        get { read { $0.httpPipeliningDepth } }
        set { write { $0.httpPipeliningDepth = newValue } }
    }

    /// FWNetworking addition: whether a session that makes its own delegate queue (no `delegateQueue`, `shared`,
    /// a session manager's) runs its connections in that queue's operations; `true` by default (`false`: on the
    /// shared event-loop threads, as a session given a queue). FWNetworking's DocC article "Threads and queues".
    open var hostsConnectionsOnDelegateQueue: Bool {
        get { read { $0.hostsConnectionsOnDelegateQueue } }
        set { write { $0.hostsConnectionsOnDelegateQueue = newValue } }
    }

    /// FWNetworking addition: how long, at most, a session that runs its connections in its delegate queue's
    /// operations (`hostsConnectionsOnDelegateQueue`) polls its sockets after its last work before it sleeps,
    /// while a connection waits for the server's answer (not while a body streams in);
    /// 200 µs by default, 0 never polls. A response from a peer on the same host or network then arrives
    /// while the session is awake, without the sleep and wake-up that cost more than the request's own work
    /// (on a virtual machine, most of a small request's time at one request at a time). The window adapts:
    /// it closes after a few responses that take longer than this (a distant server costs nothing), and it
    /// never opens when the process may use one CPU only. FWNetworking's DocC article "Threads and queues".
    open var busyPollInterval: TimeInterval {
        get { read { $0.busyPollInterval } }
        set { write { $0.busyPollInterval = newValue } }
    }

    /// Whether the session sends and stores cookies; `true` by default.
    open var httpShouldSetCookies: Bool {
        get { read { $0.httpShouldSetCookies } }
        set { write { $0.httpShouldSetCookies = newValue } }
    }

    /// The most connections the session opens to one host at a time; 6 by default.
    open var httpMaximumConnectionsPerHost: Int {
        get { read { $0.httpMaximumConnectionsPerHost } }
        set { write { $0.httpMaximumConnectionsPerHost = newValue } }
    }

    /// Header fields added to every request that does not set them itself; `nil` by default.
    open var httpAdditionalHeaders: [AnyHashable: Any]? {
        get { read { $0.httpAdditionalHeaders } }
        set { write { $0.httpAdditionalHeaders = newValue } }
    }

    /// FWNetworking addition: the limits responses must stay within (line length, head size, field
    /// count, chunk-size digits, chunk extensions, trailers). A response over a limit fails with
    /// `URLError.badServerResponse`; nothing is ever truncated. Defaults: CONFORMANCE.md.
    open var httpResponseLimits: HTTPLimits {
        get { read { $0.httpResponseLimits } }
        set { write { $0.httpResponseLimits = newValue } }
    }

    /// FWNetworking addition: strict mode. When true, a response that needs any named deviation from RFC 9112
    /// (a bare LF line end, obs-fold, a missing reason phrase, ...; the table is in FWNetworking's DocC article
    /// Conformance) fails with `URLError.badServerResponse` whose description names the deviation;
    /// when false (the default) such responses are accepted and the names are reported in
    /// `URLSessionTaskTransactionMetrics.fwResponseDeviations`. The same as setting
    /// `httpResponseLimits.refusedDeviations` to `HTTPDeviations.all` (true) or to none (false).
    open var httpRefusesDeviations: Bool {
        get { read { $0.httpResponseLimits.refusedDeviations == .all } }
        set { write { $0.httpResponseLimits.refusedDeviations = newValue ? .all : [] } }
    }

    /// The oldest TLS version the session accepts; TLS 1.2 by default.
    open var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t {
        get { read { $0.tlsMinimumSupportedProtocolVersion } }
        set { write { $0.tlsMinimumSupportedProtocolVersion = newValue } }
    }

    /// The newest TLS version the session offers; TLS 1.3 by default.
    open var tlsMaximumSupportedProtocolVersion: tls_protocol_version_t {
        get { read { $0.tlsMaximumSupportedProtocolVersion } }
        set { write { $0.tlsMaximumSupportedProtocolVersion = newValue } }
    }

    /// FWNetworking addition: the certificate authorities HTTPS servers are checked against by default
    /// handling: the system store (loaded once per process), or your own (like curl's `--cacert`).
    open var tlsTrustRoots: TrustRoots {
        get { read { $0.tlsTrustRoots } }
        set { write { $0.tlsTrustRoots = newValue } }
    }

    /// FWNetworking addition: whether new connections resume the TLS session of an earlier connection to
    /// the same host and port (true by default). Off, every connection makes a full handshake.
    open var tlsSessionResumption: Bool {
        get { read { $0.tlsSessionResumption } }
        set { write { $0.tlsSessionResumption = newValue } }
    }

    /// FWNetworking addition: check servers against the CRLs their chain's distribution points name,
    /// fetched and cached by the session before the server-trust challenge (`RevocationListFetching`:
    /// soft-fail or hard-fail, size-bounded). nil (the default): no fetch. Not archived by `encode(with:)`.
    open var tlsRevocationListFetching: RevocationListFetching? {
        get { read { $0.tlsRevocationListFetching } }
        set { write { $0.tlsRevocationListFetching = newValue } }
    }

    /// FWNetworking addition: whether connections ask servers to staple an OCSP response (the TLS
    /// status_request extension; false by default). The staple is in the challenge's trust
    /// (`SecTrust.serverTrust.stapledOCSPResponse`) for a `RevocationTrustEvaluator` to judge.
    open var tlsRequestsOCSPStapling: Bool {
        get { read { $0.tlsRequestsOCSPStapling } }
        set { write { $0.tlsRequestsOCSPStapling = newValue } }
    }

    /// FWNetworking addition: whether connections ask servers for Certificate Transparency SCTs (false by
    /// default). They are in the challenge's trust (`SecTrust.serverTrust.signedCertificateTimestampList`)
    /// for a `CertificateTransparencyTrustEvaluator`, and counted in the transaction metrics.
    open var tlsRequestsSignedCertificateTimestamps: Bool {
        get { read { $0.tlsRequestsSignedCertificateTimestamps } }
        set { write { $0.tlsRequestsSignedCertificateTimestamps = newValue } }
    }

    /// FWNetworking addition: how the SCTs asked for are judged for the transaction metrics'
    /// `fwCertificateTransparency`: the log list (none by default: every SCT is "unknown-log") and the
    /// distinct logs required. Reported only; not archived by `encode(with:)`.
    open var tlsCertificateTransparencyPolicy: CertificateTransparencyPolicy {
        get { read { $0.tlsCertificateTransparencyPolicy } }
        set { write { $0.tlsCertificateTransparencyPolicy = newValue } }
    }

    // MARK: Cookies and credentials

    /// The cookie storage requests read and responses fill; `nil` handles no cookies. The shared storage by
    /// default; a new in-memory storage for `ephemeral`.
    open var httpCookieStorage: HTTPCookieStorage? {
        get { read { $0.httpCookieStorage } }
        set { write { $0.httpCookieStorage = newValue } }
    }

    /// Which cookies responses may set; it overrides the cookie storage's own policy.
    /// `.onlyFromMainDocumentDomain` by default.
    open var httpCookieAcceptPolicy: HTTPCookie.AcceptPolicy {
        get { read { $0.httpCookieAcceptPolicy } }
        set { write { $0.httpCookieAcceptPolicy = newValue } }
    }

    /// The credential storage authentication challenges consult; `nil` uses none. The shared storage by
    /// default; a new in-memory storage for `ephemeral`.
    open var urlCredentialStorage: URLCredentialStorage? {
        get { read { $0.urlCredentialStorage } }
        set { write { $0.urlCredentialStorage = newValue } }
    }

    // MARK: Caching

    /// The cache responses are looked up in and stored to, nil for none: `URLCache.shared` by default; for
    /// `.ephemeral`, a new 4 MiB cache in memory only.
    open var urlCache: URLCache? {
        get { read { $0.urlCache } }
        set { write { $0.urlCache = newValue } }
    }

    // MARK: URL protocols

    /// The `URLProtocol` subclasses the session's tasks consult, in order, before the URL cache and the
    /// network on every request: the first whose `canInit(with:)` accepts the task loads it. Empty by
    /// default; requests no class takes go to FWNetworking's own HTTP engine. (FoundationNetworking lists
    /// its built-in classes here; insert yours at the front as you would there.)
    open var protocolClasses: [AnyClass]? {
        get { read { $0.protocolClasses } }
        set { write { $0.protocolClasses = newValue } }
    }

    // MARK: Locking

    /// Reads a property: in place when frozen, else under the lock.
    private func read<Result>(_ body: (Storage) -> Result) -> Result {
        if let frozen { return body(frozen.storage) }
        return storage.withLock { body($0) }
    }

    /// Changes a property; a frozen configuration never changes (nothing outside the session reaches one).
    private func write(_ body: (inout Storage) -> Void) {
        precondition(frozen == nil, "a session's own configuration does not change")
        storage.withLock(body)
    }

    /// A copy whose properties never change, read without a lock: a session's own. A subclass's instance
    /// keeps its class's `copy()` (its overrides may read other properties than the storage).
    func sessionCopy() -> URLSessionConfiguration {
        let copy = copy() as? URLSessionConfiguration ?? self
        guard type(of: copy) == URLSessionConfiguration.self else { return copy }
        return URLSessionConfiguration(storage: copy.storage.withLock { $0 }, frozen: true)
    }
}
