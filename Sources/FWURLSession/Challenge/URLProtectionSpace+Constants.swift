// The protocol, proxy-type and authentication-method strings of URLProtectionSpace, with
// FoundationNetworking's values. NSURLAuthenticationMethodServerTrust and
// NSURLAuthenticationMethodClientCertificate are usable here (FoundationNetworking declares them
// unavailable): FWNetworking raises both challenges.

import Foundation

// MARK: - Protocols and proxy types

/// The protocol for HTTP.
public let NSURLProtectionSpaceHTTP: String = "NSURLProtectionSpaceHTTP"
/// The protocol for HTTPS.
public let NSURLProtectionSpaceHTTPS: String = "NSURLProtectionSpaceHTTPS"
/// The protocol for FTP.
public let NSURLProtectionSpaceFTP: String = "NSURLProtectionSpaceFTP"
/// The proxy type for HTTP proxies.
public let NSURLProtectionSpaceHTTPProxy: String = "NSURLProtectionSpaceHTTPProxy"
/// The proxy type for HTTPS proxies.
public let NSURLProtectionSpaceHTTPSProxy: String = "NSURLProtectionSpaceHTTPSProxy"
/// The proxy type for FTP proxies.
public let NSURLProtectionSpaceFTPProxy: String = "NSURLProtectionSpaceFTPProxy"
/// The proxy type for SOCKS proxies.
public let NSURLProtectionSpaceSOCKSProxy: String = "NSURLProtectionSpaceSOCKSProxy"

// MARK: - Authentication methods

/// The default authentication method for a protocol.
public let NSURLAuthenticationMethodDefault: String = "NSURLAuthenticationMethodDefault"
/// HTTP basic authentication (the default for HTTP).
public let NSURLAuthenticationMethodHTTPBasic: String = "NSURLAuthenticationMethodHTTPBasic"
/// HTTP digest authentication.
public let NSURLAuthenticationMethodHTTPDigest: String = "NSURLAuthenticationMethodHTTPDigest"
/// HTML form authentication (any protocol).
public let NSURLAuthenticationMethodHTMLForm: String = "NSURLAuthenticationMethodHTMLForm"
/// NTLM authentication.
public let NSURLAuthenticationMethodNTLM: String = "NSURLAuthenticationMethodNTLM"
/// Negotiate (Kerberos or NTLM) authentication.
public let NSURLAuthenticationMethodNegotiate: String = "NSURLAuthenticationMethodNegotiate"
/// A TLS client certificate is requested: answer with `URLCredential(identity:certificates:persistence:)`.
public let NSURLAuthenticationMethodClientCertificate: String = "NSURLAuthenticationMethodClientCertificate"
/// The server's certificate chain must be evaluated: the protection space's `serverTrust` carries it.
public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"
