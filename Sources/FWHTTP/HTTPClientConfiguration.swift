import FWTLS
import FWTransport

// MARK: - HTTPClient.Configuration

extension HTTPClient {
    /// Settings fixed for a client's lifetime: timeouts, the connection pool, redirects, content decoding,
    /// a proxy, and TLS.
    public struct Configuration: Sendable {
        /// The longest establishing a connection may take (resolving, connecting, TLS and the trust
        /// decision together).
        public var connectTimeout: Duration
        /// The longest a request may go without a byte moving (also how long it may wait for a connection).
        public var idleTimeout: Duration
        /// The longest one request may take from `execute` to the end of its body, redirects included; nil
        /// for no limit.
        public var requestTimeout: Duration?
        /// Most open connections per (scheme, host, port, proxy).
        public var maxConnectionsPerHost: Int
        /// How long an idle connection is kept for reuse.
        public var idleConnectionTimeout: Duration
        /// Which redirects are followed.
        public var redirectPolicy: RedirectPolicy
        /// Ask for compressed bodies (`Accept-Encoding`, unless the request sets it) and undo a gzip,
        /// deflate (or, when the system has libbrotli, br) `Content-Encoding`.
        public var decodesContent: Bool
        /// Every request goes through this proxy (HTTP: absolute-form, or CONNECT for HTTPS; SOCKS5);
        /// nil connects directly.
        public var proxy: ProxyServer?
        /// How servers are trusted and what the client presents.
        public var tls: TLS

        /// Creates a configuration; the defaults follow URLSession's.
        public init(connectTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(60),
                    requestTimeout: Duration? = nil, maxConnectionsPerHost: Int = 6,
                    idleConnectionTimeout: Duration = .seconds(90), redirectPolicy: RedirectPolicy = .follow(max: 20),
                    decodesContent: Bool = true, proxy: ProxyServer? = nil, tls: TLS = TLS()) {
            self.connectTimeout = connectTimeout
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.idleConnectionTimeout = idleConnectionTimeout
            self.redirectPolicy = redirectPolicy
            self.decodesContent = decodesContent
            self.proxy = proxy
            self.tls = tls
        }
    }

    /// Which redirects (301, 302, 303, 307, 308 with a `Location`) the client follows.
    public enum RedirectPolicy: Sendable, Hashable {
        /// Never: a redirect is the response.
        case none
        /// Up to `max` redirects per request; one more fails with `HTTPClientError.isTooManyRedirects`.
        case follow(max: Int)
    }

    /// The TLS settings of a client.
    public struct TLS: Sendable {
        /// The anchors chains are verified against (default: the system store found at run time).
        public var trustRoots: TrustRoots
        /// Trust any server (curl's `-k`): no chain or host check. Pins still apply when set.
        public var insecure: Bool
        /// SPKI SHA-256 hashes (32 bytes each, curl's `--pinnedpubkey sha256//…`): a server is trusted
        /// only when a key of its chain matches one; empty pins nothing.
        public var pinnedSPKIHashes: [[UInt8]]
        /// The certificate and key sent when a server asks for one.
        public var clientIdentity: TLSIdentity?
        /// The oldest TLS version offered.
        public var minimumVersion: TLSVersion

        /// Creates TLS settings.
        public init(trustRoots: TrustRoots = .system, insecure: Bool = false, pinnedSPKIHashes: [[UInt8]] = [],
                    clientIdentity: TLSIdentity? = nil, minimumVersion: TLSVersion = .v1_2) {
            self.trustRoots = trustRoots
            self.insecure = insecure
            self.pinnedSPKIHashes = pinnedSPKIHashes
            self.clientIdentity = clientIdentity
            self.minimumVersion = minimumVersion
        }

        /// Pins from curl's text, `sha256//BASE64[;sha256//BASE64...]`; throws `TrustError.invalidPin` for
        /// a malformed entry.
        public mutating func pin(_ text: String) throws(TrustError) {
            pinnedSPKIHashes += try SPKIPinsTrustEvaluator.parse(text)
        }
    }
}

// MARK: - Transport configuration

extension HTTPClient.Configuration {
    /// The transport settings these settings ask for.
    var transportConfiguration: HTTPTransport.Configuration {
        let tlsConfiguration = TLSConfiguration(minimumVersion: tls.minimumVersion, trustRoots: tls.trustRoots,
                                                clientIdentity: tls.clientIdentity)
        return HTTPTransport.Configuration(
            maxConnectionsPerHost: maxConnectionsPerHost, connectTimeout: connectTimeout,
            idleConnectionTimeout: idleConnectionTimeout, tls: tlsConfiguration,
            serverTrustHandler: tls.trustHandler)
    }
}

extension HTTPClient.TLS {
    /// The evaluator for these settings, as a transport handler; nil for the default evaluation.
    var trustHandler: ServerTrustHandler? {
        let evaluator: (any TrustEvaluator)?
        if !pinnedSPKIHashes.isEmpty {
            evaluator = SPKIPinsTrustEvaluator(hashes: pinnedSPKIHashes, performDefaultValidation: !insecure,
                                               validateHost: !insecure)
        } else if insecure {
            evaluator = DisabledTrustEvaluator()
        } else {
            evaluator = nil
        }
        guard let evaluator else { return nil }
        return { trust, _, _, decide in
            do throws(TrustError) {
                try evaluator.evaluate(trust)
                decide(.trust)
            } catch {
                decide(.reject(error))
            }
        }
    }
}
