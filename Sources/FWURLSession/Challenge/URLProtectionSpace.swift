// URLProtectionSpace, source-compatible with FoundationNetworking's, plus what Apple platforms have and
// FoundationNetworking lacks: `serverTrust` for NSURLAuthenticationMethodServerTrust challenges and
// `distinguishedNames` for NSURLAuthenticationMethodClientCertificate ones. Instances are immutable, so
// `copy(with:)` returns the receiver and the class is `@unchecked Sendable` without a lock.

import Foundation

// MARK: - URLProtectionSpace

/// A server or proxy (and realm) that requires authentication, or a TLS connection whose server trust
/// must be evaluated or which asks for a client certificate.
///
/// `@unchecked Sendable`: the only stored property is a `let`; `SecTrust` guards its own state.
open class URLProtectionSpace: NSObject, NSCopying, @unchecked Sendable { // lets only; SecTrust guards itself
    private struct Fields {
        var host: String
        var port: Int
        var `protocol`: String?
        var isProxy = false
        var proxyType: String?
        var realm: String?
        var authenticationMethod: String
        var serverTrust: SecTrust?
        var distinguishedNames: [Data]?
    }

    private let fields: Fields

    // MARK: Initialisation

    /// A protection space for an origin server (or a realm on one). `protocol` is a scheme such as
    /// "https" (or an NSURLProtectionSpace constant); a nil `authenticationMethod` means
    /// `NSURLAuthenticationMethodDefault`.
    public init(host: String, port: Int, protocol: String?, realm: String?, authenticationMethod: String?) {
        self.fields = Fields(
            host: host, port: port, protocol: `protocol`, realm: realm,
            authenticationMethod: authenticationMethod ?? NSURLAuthenticationMethodDefault
        )
    }

    /// A protection space for a proxy server (or a realm on one). `type` is a proxy type such as
    /// `NSURLProtectionSpaceHTTPProxy`.
    public init(proxyHost host: String, port: Int, type: String?, realm: String?, authenticationMethod: String?) {
        self.fields = Fields(
            host: host, port: port, isProxy: true, proxyType: type, realm: realm,
            authenticationMethod: authenticationMethod ?? NSURLAuthenticationMethodDefault
        )
    }

    /// The server-trust protection space of a TLS connection (`NSURLAuthenticationMethodServerTrust`,
    /// protocol "https"), carrying the trust the delegate evaluates.
    init(serverTrust: SecTrust, host: String, port: Int) {
        self.fields = Fields(
            host: host, port: port, protocol: "https",
            authenticationMethod: NSURLAuthenticationMethodServerTrust, serverTrust: serverTrust
        )
    }

    /// The client-certificate protection space of a TLS connection whose server asked for a
    /// certificate (`NSURLAuthenticationMethodClientCertificate`, protocol "https"), with the DER
    /// distinguished names of the issuers it accepts.
    init(clientCertificateRequestFrom host: String, port: Int, distinguishedNames: [Data]) {
        self.fields = Fields(
            host: host, port: port, protocol: "https",
            authenticationMethod: NSURLAuthenticationMethodClientCertificate, distinguishedNames: distinguishedNames
        )
    }

    // MARK: Properties

    /// The server's host name (or the proxy's).
    open var host: String { fields.host }

    /// The server's port (or the proxy's), 0 when not set.
    open var port: Int { fields.port }

    /// The protocol (e.g. "https") of an origin server's space; nil for a proxy.
    open var `protocol`: String? { fields.protocol }

    /// The proxy type of a proxy's space; nil for an origin server.
    open var proxyType: String? { fields.proxyType }

    /// The authentication realm (HTTP's `realm` parameter), if any.
    open var realm: String? { fields.realm }

    /// The authentication method, one of the NSURLAuthenticationMethod constants.
    open var authenticationMethod: String { fields.authenticationMethod }

    /// True when credentials for this space are never sent in the clear: the protocol (or proxy type)
    /// is TLS-protected, or the method does not send the password (digest, NTLM, Negotiate, client
    /// certificate, server trust).
    open var receivesCredentialSecurely: Bool {
        let secureTransports = [NSURLProtectionSpaceHTTPS, "https", "ftps", NSURLProtectionSpaceHTTPSProxy]
        if let transport = fields.protocol ?? fields.proxyType, secureTransports.contains(transport) { return true }
        return [
            NSURLAuthenticationMethodHTTPDigest, NSURLAuthenticationMethodNTLM,
            NSURLAuthenticationMethodNegotiate, NSURLAuthenticationMethodClientCertificate,
            NSURLAuthenticationMethodServerTrust,
        ].contains(fields.authenticationMethod)
    }

    /// True for a proxy's protection space.
    open override func isProxy() -> Bool { fields.isProxy }

    /// The server's trust for an `NSURLAuthenticationMethodServerTrust` space; nil for other methods.
    open var serverTrust: SecTrust? { fields.serverTrust }

    /// The DER distinguished names of the certificate authorities the server accepts, for an
    /// `NSURLAuthenticationMethodClientCertificate` space; nil for other methods.
    open var distinguishedNames: [Data]? { fields.distinguishedNames }

    // MARK: NSCopying, equality, description

    /// Returns the receiver: protection spaces are immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Returns the receiver: protection spaces are immutable.
    open override func copy() -> Any { copy(with: nil) }

    /// Equal when host (ignoring case), port, protocol, proxy type, realm and method are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? URLProtectionSpace else { return false }
        return other === self
            || (other.host.lowercased() == host.lowercased() && other.port == port
                && other.protocol == self.protocol && other.proxyType == proxyType && other.realm == realm
                && other.authenticationMethod == authenticationMethod && other.isProxy() == isProxy())
    }

    /// Hashes what `isEqual(_:)` compares.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(host.lowercased())
        hasher.combine(port)
        hasher.combine(self.protocol)
        hasher.combine(proxyType)
        hasher.combine(realm)
        hasher.combine(authenticationMethod)
        return hasher.finalize()
    }

    /// Every property in one line, in FoundationNetworking's format.
    open override var description: String {
        "<\(type(of: self)) \(Unmanaged.passUnretained(self).toOpaque())>: Host:\(host), "
            + "Server:\(self.protocol ?? "(null)"), Auth-Scheme:\(authenticationMethod), "
            + "Realm:\(realm ?? "(null)"), Port:\(port), Proxy:\(isProxy() ? "YES" : "NO"), "
            + "Proxy-Type:\(proxyType ?? "(null)")"
    }
}
