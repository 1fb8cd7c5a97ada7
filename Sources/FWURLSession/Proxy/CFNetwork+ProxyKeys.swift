// The keys of `URLSessionConfiguration.connectionProxyDictionary`, named and spelled as CFNetwork names them
// on Apple platforms (Foundation on Linux declares none of them), so that code written there compiles
// here: `[kCFNetworkProxiesHTTPEnable as String: true, kCFNetworkProxiesHTTPProxy as String: "proxy", ...]`.
// On Apple platforms they are `CFString`s; here they are `String`s with the same values.

// MARK: - Global proxy settings (CFProxySupport)

/// Whether the HTTP proxy is used for `http` URLs: a number or Bool, on when present and nonzero.
public let kCFNetworkProxiesHTTPEnable: String = "HTTPEnable"
/// The HTTP proxy's host name or address.
public let kCFNetworkProxiesHTTPProxy: String = "HTTPProxy"
/// The HTTP proxy's port (default 1080, as curl's).
public let kCFNetworkProxiesHTTPPort: String = "HTTPPort"
/// Whether the HTTPS proxy (an HTTP proxy that opens CONNECT tunnels) is used for `https` URLs.
public let kCFNetworkProxiesHTTPSEnable: String = "HTTPSEnable"
/// The HTTPS proxy's host name or address.
public let kCFNetworkProxiesHTTPSProxy: String = "HTTPSProxy"
/// The HTTPS proxy's port (default 1080).
public let kCFNetworkProxiesHTTPSPort: String = "HTTPSPort"
/// Whether the SOCKS proxy is used (for URLs of a scheme whose HTTP or HTTPS proxy is not enabled).
public let kCFNetworkProxiesSOCKSEnable: String = "SOCKSEnable"
/// The SOCKS5 proxy's host name or address. It resolves origin names itself (socks5h), as CFNetwork's does.
public let kCFNetworkProxiesSOCKSProxy: String = "SOCKSProxy"
/// The SOCKS proxy's port (default 1080).
public let kCFNetworkProxiesSOCKSPort: String = "SOCKSPort"
/// Hosts that bypass the proxies: an array of strings, each a name (a suffix match: `example.org`,
/// `.example.org` and `*.example.org` all match `www.example.org`), an address, a CIDR range
/// (`10.0.0.0/8`, `169.254/16`, `fd00::/8`), optionally with `:port`, or `*` for every host.
public let kCFNetworkProxiesExceptionsList: String = "ExceptionsList"
/// Whether host names without a dot bypass the proxies: a number or Bool, on when present and nonzero.
public let kCFNetworkProxiesExcludeSimpleHostnames: String = "ExcludeSimpleHostnames"

// MARK: - Proxy credentials

/// The user name presented to the HTTP and HTTPS proxies (and to the SOCKS proxy unless
/// `kCFStreamPropertySOCKSUser` names another).
public let kCFProxyUsernameKey: String = "kCFProxyUsernameKey"
/// The password that goes with `kCFProxyUsernameKey`.
public let kCFProxyPasswordKey: String = "kCFProxyPasswordKey"
/// The user name presented to the SOCKS proxy (RFC 1929).
public let kCFStreamPropertySOCKSUser: String = "kCFStreamPropertySOCKSUser"
/// The password that goes with `kCFStreamPropertySOCKSUser`.
public let kCFStreamPropertySOCKSPassword: String = "kCFStreamPropertySOCKSPassword"

// MARK: - FWNetworking additions

/// FWNetworking addition: when present and nonzero, origin names are resolved here and the SOCKS5 proxy
/// is given addresses (curl's `socks5://`); by default the proxy resolves them (`socks5h://`).
public let kFWNetworkProxiesSOCKSResolvesNamesLocally: String = "FWSOCKSResolvesNamesLocally"
