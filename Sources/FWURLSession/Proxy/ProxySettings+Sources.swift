import Foundation
import FWTransport

// MARK: - ProxySettings from the dictionary and from the environment

extension ProxySettings {
    /// The settings of a `connectionProxyDictionary` (CFNetwork's keys; see CFNetwork+ProxyKeys.swift).
    init(dictionary: [AnyHashable: Any]) {
        self = .direct
        let reader = DictionaryReader(dictionary: dictionary)
        let user = reader.string(kCFProxyUsernameKey)
        let credentials = user.map { ProxyCredentials(user: $0, password: reader.string(kCFProxyPasswordKey) ?? "") }
        http = reader.proxy(enable: kCFNetworkProxiesHTTPEnable, host: kCFNetworkProxiesHTTPProxy,
                            port: kCFNetworkProxiesHTTPPort, kind: .http, credentials: credentials)
        https = reader.proxy(enable: kCFNetworkProxiesHTTPSEnable, host: kCFNetworkProxiesHTTPSProxy,
                             port: kCFNetworkProxiesHTTPSPort, kind: .http, credentials: credentials)
        let socksUser = reader.string(kCFStreamPropertySOCKSUser)
        let socksCredentials = socksUser.map {
            ProxyCredentials(user: $0, password: reader.string(kCFStreamPropertySOCKSPassword) ?? "")
        } ?? credentials
        let socksKind: ProxyServer.Kind = reader.flag(kFWNetworkProxiesSOCKSResolvesNamesLocally)
            ? .socks5 : .socks5RemoteResolution
        fallback = reader.proxy(enable: kCFNetworkProxiesSOCKSEnable, host: kCFNetworkProxiesSOCKSProxy,
                                port: kCFNetworkProxiesSOCKSPort, kind: socksKind, credentials: socksCredentials)
        let exceptionList = dictionary[kCFNetworkProxiesExceptionsList] as? [Any] ?? []
        exceptions = NoProxyList(entries: exceptionList.compactMap { $0 as? String })
        excludeSimpleHostnames = reader.flag(kCFNetworkProxiesExcludeSimpleHostnames)
    }

    /// The environment variables `init(environment:)` reads.
    static let environmentNames = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                   "no_proxy", "NO_PROXY", "REQUEST_METHOD"]

    /// The settings of the environment, as curl reads it: `http_proxy`, `https_proxy` (either case),
    /// `all_proxy` (either case) for any scheme, `no_proxy` (either case); lowercase wins. Uppercase
    /// `HTTP_PROXY` is ignored when `REQUEST_METHOD` is set: in a CGI program it comes from the client's
    /// `Proxy:` header (httpoxy). Empty values count as unset.
    init(environment: [String: String]) {
        self = .direct
        func value(_ name: String, uppercase: Bool = true) -> (name: String, value: String)? {
            if let lower = environment[name], !lower.isEmpty { return (name, lower) }
            guard uppercase, let upper = environment[name.uppercased()], !upper.isEmpty else { return nil }
            return (name.uppercased(), upper)
        }
        let cgi = environment["REQUEST_METHOD"] != nil
        http = value("http_proxy", uppercase: !cgi).map { Self.entry(proxyURL: $0.value, name: $0.name) }
        https = value("https_proxy").map { Self.entry(proxyURL: $0.value, name: $0.name) }
        fallback = value("all_proxy").map { Self.entry(proxyURL: $0.value, name: $0.name) }
        exceptions = NoProxyList(value("no_proxy")?.value ?? "")
    }
}

/// Reads CFNetwork-style values: flags and ports as Bool, numbers or strings.
private struct DictionaryReader {
    let dictionary: [AnyHashable: Any]

    func string(_ key: String) -> String? {
        dictionary[key] as? String
    }

    func flag(_ key: String) -> Bool {
        switch dictionary[key] {
        case let value as Bool: return value
        case let value as Int: return value != 0
        case let value as NSNumber: return value.boolValue
        case let value as String: return ["1", "true", "yes"].contains(value.lowercased())
        default: return false
        }
    }

    func number(_ key: String) -> Int? {
        switch dictionary[key] {
        case let value as Int: return value
        case let value as NSNumber: return value.intValue
        case let value as String: return Int(value)
        default: return nil
        }
    }

    /// The proxy an enable/host/port triple describes, when enabled.
    func proxy(enable: String, host: String, port: String, kind: ProxyServer.Kind,
               credentials: ProxyCredentials?) -> ProxySettings.Entry? {
        guard flag(enable) else { return nil }
        guard var name = string(host), !name.isEmpty else { return .invalid("\(enable) is set without \(host)") }
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        let number = self.number(port) ?? ProxySettings.defaultPort
        guard (1...65535).contains(number) else { return .invalid("\(port) \(number) is not a port") }
        return .proxy(ProxyServer(kind: kind, host: name, port: number, credentials: credentials))
    }
}
