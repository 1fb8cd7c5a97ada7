import Foundation
import FWNetworking

// MARK: - Options: proxies
//
// `-x` becomes the session's `connectionProxyDictionary` (CFNetwork's keys): an http:// proxy serves both
// schemes (plain requests in absolute form, CONNECT tunnels for https), a socks5:// or socks5h:// proxy
// serves both through SOCKS5. Without `-x` the session reads the environment, and `--noproxy` replaces
// `no_proxy` there, as curl's does.
//
// The proxy's credentials (`-U`, or USER:PASSWORD@ in the `-x` URL): with `--proxy-basic` (the default) they
// go into the dictionary, and the session sends them with Basic from the start (to a tunnel: once the proxy
// asks); with `--proxy-digest` or `--proxy-anyauth` they stay out of it and answer the proxy's 407
// challenges instead (`HTTPAuthPolicy` for a proxy space, see `Transfer+Trace.swift`). A SOCKS5 proxy
// always gets them in the dictionary.

extension Options {
    /// The dictionary `-x`, `-U` and `--noproxy` describe; nil without `-x` (the environment decides).
    func proxyDictionary() throws(UsageError) -> [AnyHashable: Any]? {
        guard let proxy else { return nil }
        guard !proxy.isEmpty else { return [:] }
        let full = proxy.contains("://") ? proxy : "http://" + proxy
        guard let components = URLComponents(string: full), let host = components.host, !host.isEmpty else {
            throw UsageError(description: "-x takes [http|socks5|socks5h]://[USER:PASSWORD@]HOST[:PORT], not \(proxy)")
        }
        let port = components.port ?? 1080
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        var dictionary: [AnyHashable: Any] = [:]
        switch components.scheme?.lowercased() {
        case "http":
            for (enable, key, portKey) in [
                (kCFNetworkProxiesHTTPEnable, kCFNetworkProxiesHTTPProxy, kCFNetworkProxiesHTTPPort),
                (kCFNetworkProxiesHTTPSEnable, kCFNetworkProxiesHTTPSProxy, kCFNetworkProxiesHTTPSPort),
            ] {
                dictionary[enable] = 1
                dictionary[key] = bare
                dictionary[portKey] = port
            }
        case "socks5", "socks5h":
            dictionary[kCFNetworkProxiesSOCKSEnable] = 1
            dictionary[kCFNetworkProxiesSOCKSProxy] = bare
            dictionary[kCFNetworkProxiesSOCKSPort] = port
            dictionary[kFWNetworkProxiesSOCKSResolvesNamesLocally] = components.scheme?.lowercased() == "socks5"
        case let other:
            throw UsageError(
                description: "-x: the proxy scheme \(other ?? "") is not supported (http, socks5, socks5h)")
        }
        // A SOCKS5 proxy's credentials always go in (RFC 1929 has no challenge to answer).
        let answersChallenges = proxyAuthScheme != .basic && components.scheme?.lowercased() == "http"
        if !answersChallenges, let (user, password) = credentials(components) {
            dictionary[kCFProxyUsernameKey] = user
            dictionary[kCFProxyPasswordKey] = password
        }
        if let noProxy { dictionary[kCFNetworkProxiesExceptionsList] = [noProxy] }
        return dictionary
    }

    /// The answers to an HTTP proxy's 407 challenges with `--proxy-digest` or `--proxy-anyauth`; nil
    /// without proxy credentials or with `--proxy-basic`.
    var proxyAuthentication: HTTPAuthPolicy? {
        guard proxyAuthScheme != .basic, let proxy, !proxy.isEmpty,
              let components = URLComponents(string: proxy.contains("://") ? proxy : "http://" + proxy),
              components.scheme?.lowercased() == "http", let (user, password) = credentials(components) else {
            return nil
        }
        return HTTPAuthPolicy(user: user, password: password, scheme: proxyAuthScheme, forProxy: true)
    }

    /// `-U`, else the user and password of the `-x` URL (percent-decoded).
    private func credentials(_ components: URLComponents) -> (String, String)? {
        if let proxyUser {
            let parts = proxyUser.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        guard let user = components.percentEncodedUser?.removingPercentEncoding else { return nil }
        return (user, components.percentEncodedPassword?.removingPercentEncoding ?? "")
    }

    /// Applies the proxy options to `configuration` (and `--noproxy` without `-x` to this process's
    /// `no_proxy`, which the session reads).
    func applyProxies(to configuration: URLSessionConfiguration) throws(UsageError) {
        if let dictionary = try proxyDictionary() {
            configuration.connectionProxyDictionary = dictionary
        } else if let noProxy {
            setenv("no_proxy", noProxy, 1)
            unsetenv("NO_PROXY")
        }
    }
}
