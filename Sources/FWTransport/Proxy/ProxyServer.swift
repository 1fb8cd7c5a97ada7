import FWTLS

// MARK: - ProxyServer

/// A proxy a connection goes through: an HTTP proxy (absolute-form requests for plain HTTP, a CONNECT
/// tunnel for HTTPS) or a SOCKS5 proxy (a tunnel for both). Part of `ConnectionKey`, so connections
/// through different proxies (or different credentials) never serve each other's requests.
public struct ProxyServer: Hashable, Sendable, CustomStringConvertible {
    /// How the proxy is spoken to. A struct with static members: more kinds (HTTPS proxies, SOCKS4) may come.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// An HTTP proxy (RFC 9110 §9.3.6 for tunnels).
        public static let http = Kind(name: "http")
        /// A SOCKS5 proxy (RFC 1928) that is given the origin's address, resolved here ("socks5://").
        public static let socks5 = Kind(name: "socks5")
        /// A SOCKS5 proxy that is given the origin's name and resolves it itself ("socks5h://").
        public static let socks5RemoteResolution = Kind(name: "socks5h")

        /// The URL scheme of the kind: "http", "socks5" or "socks5h".
        public var description: String { name }
    }

    /// How the proxy is spoken to.
    public var kind: Kind
    /// The proxy's host (name or numeric address, without IPv6 brackets), lowercased.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The credentials to present: Basic `Proxy-Authorization` for an HTTP proxy, RFC 1929
    /// username/password for a SOCKS5 proxy.
    public var credentials: ProxyCredentials?
    /// A `Proxy-Authorization` value chosen above the transport (the session's answer to a 407) for an HTTP
    /// proxy: sent with the first CONNECT and with every request in absolute form, instead of the Basic
    /// value of `credentials`. Part of the key, so only requests carrying the same value use the
    /// connections opened with it. Never shown in descriptions.
    public var authorization: String?

    /// Creates a proxy; the host is lowercased.
    public init(kind: Kind, host: String, port: Int, credentials: ProxyCredentials? = nil,
                authorization: String? = nil) {
        self.kind = kind
        self.host = host.lowercased()
        self.port = port
        self.credentials = credentials
        self.authorization = authorization
    }

    /// "socks5h://host:port" (credentials never appear).
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(kind)://\(shownHost):\(port)"
    }
}

// MARK: - ProxyCredentials

/// A user name and password for a proxy. Their text never appears in descriptions or logs.
public struct ProxyCredentials: Hashable, Sendable, CustomStringConvertible {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates credentials.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Proxy-Authorization` value of the Basic scheme (RFC 7617): base64 of "user:password" in UTF-8.
    public var basicAuthorization: String {
        "Basic " + Base64.encode(Array("\(user):\(password)".utf8))
    }

    /// "user:***".
    public var description: String { "\(user):***" }
}
