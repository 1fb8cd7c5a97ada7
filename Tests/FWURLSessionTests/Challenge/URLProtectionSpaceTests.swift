import Foundation
import FWTLS
@testable import FWURLSession
import Testing

@Suite struct URLProtectionSpaceTests {
    static func serverTrust() throws -> SecTrust {
        SecTrust(serverTrust: ServerTrust(
            certificateChain: try SecurityFixtures.chain("valid-rsa.pem").map(\.certificate), host: "localhost",
            anchors: .certificates([try SecurityFixtures.root().certificate])
        ))
    }

    @Test func anOriginServerSpace() {
        let space = URLProtectionSpace(host: "api.fw.test", port: 8080, protocol: "http", realm: "users",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPDigest)
        #expect(space.host == "api.fw.test")
        #expect(space.port == 8080)
        #expect(space.protocol == "http")
        #expect(space.realm == "users")
        #expect(space.authenticationMethod == NSURLAuthenticationMethodHTTPDigest)
        #expect(!space.isProxy())
        #expect(space.proxyType == nil)
        #expect(space.serverTrust == nil)
        #expect(space.distinguishedNames == nil)
    }

    @Test func aProxySpace() {
        let space = URLProtectionSpace(proxyHost: "proxy.fw.test", port: 3128, type: NSURLProtectionSpaceHTTPProxy,
                                       realm: nil, authenticationMethod: nil)
        #expect(space.isProxy())
        #expect(space.proxyType == NSURLProtectionSpaceHTTPProxy)
        #expect(space.protocol == nil)
        #expect(space.authenticationMethod == NSURLAuthenticationMethodDefault)
        #expect(URLProtectionSpace(proxyHost: "p", port: 1, type: nil, realm: nil, authenticationMethod: nil).isProxy())
    }

    @Test func aServerTrustSpaceCarriesTheTrust() throws {
        let trust = try Self.serverTrust()
        let space = URLProtectionSpace(serverTrust: trust, host: "localhost", port: 8443)
        #expect(space.authenticationMethod == NSURLAuthenticationMethodServerTrust)
        #expect(space.serverTrust === trust)
        #expect(space.protocol == "https")
        #expect(space.host == "localhost")
        #expect(space.port == 8443)
        #expect(space.realm == nil)
        #expect(space.distinguishedNames == nil)
        #expect(space.receivesCredentialSecurely)
    }

    @Test func aClientCertificateSpaceCarriesTheAcceptedIssuers() {
        let names = [Data([0x30, 0x00]), Data([0x30, 0x01, 0x00])]
        let space = URLProtectionSpace(clientCertificateRequestFrom: "mtls.fw.test", port: 443,
                                       distinguishedNames: names)
        #expect(space.authenticationMethod == NSURLAuthenticationMethodClientCertificate)
        #expect(space.distinguishedNames == names)
        #expect(space.serverTrust == nil)
        #expect(space.protocol == "https")
    }

    @Test(arguments: [
        ("https", NSURLAuthenticationMethodHTTPBasic, true),
        (NSURLProtectionSpaceHTTPS, NSURLAuthenticationMethodDefault, true),
        ("ftps", NSURLAuthenticationMethodHTMLForm, true),
        ("http", NSURLAuthenticationMethodHTTPBasic, false),
        ("http", NSURLAuthenticationMethodDefault, false),
        ("http", NSURLAuthenticationMethodHTMLForm, false),
        ("http", NSURLAuthenticationMethodHTTPDigest, true),
        ("http", NSURLAuthenticationMethodNTLM, true),
        ("http", NSURLAuthenticationMethodNegotiate, true),
        ("http", NSURLAuthenticationMethodClientCertificate, true),
        ("http", NSURLAuthenticationMethodServerTrust, true),
    ])
    func receivesCredentialSecurely(_ scheme: String, _ method: String, _ secure: Bool) {
        let space = URLProtectionSpace(host: "h", port: 1, protocol: scheme, realm: nil, authenticationMethod: method)
        #expect(space.receivesCredentialSecurely == secure)
    }

    @Test func aProxyIsSecureWhenItIsAnHTTPSProxy() {
        let https = URLProtectionSpace(proxyHost: "p", port: 1, type: NSURLProtectionSpaceHTTPSProxy, realm: nil,
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let http = URLProtectionSpace(proxyHost: "p", port: 1, type: NSURLProtectionSpaceHTTPProxy, realm: nil,
                                      authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        #expect(https.receivesCredentialSecurely)
        #expect(!http.receivesCredentialSecurely)
    }

    @Test func equalityComparesEverythingButTheTrustAndHostCase() throws {
        func space(host: String = "API.fw.test", port: Int = 443, scheme: String? = "https", realm: String? = "r",
                   method: String? = nil) -> URLProtectionSpace {
            URLProtectionSpace(host: host, port: port, protocol: scheme, realm: realm, authenticationMethod: method)
        }
        let reference = space()
        #expect(reference == space(host: "api.FW.test"))
        #expect(reference.hash == space(host: "api.FW.test").hash)
        #expect(reference == space(method: NSURLAuthenticationMethodDefault))
        for other in [
            space(host: "other.fw.test"), space(port: 80), space(scheme: "http"), space(realm: nil),
            space(method: NSURLAuthenticationMethodHTTPDigest),
            URLProtectionSpace(proxyHost: "api.fw.test", port: 443, type: nil, realm: "r", authenticationMethod: nil),
        ] {
            #expect(reference != other, "\(other)")
        }
        #expect(!reference.isEqual("not a space"))
        let trust = try Self.serverTrust()
        #expect(URLProtectionSpace(serverTrust: trust, host: "localhost", port: 443)
            == URLProtectionSpace(serverTrust: try Self.serverTrust(), host: "localhost", port: 443))
    }

    @Test func copiesAreTheSameObject() {
        let space = URLProtectionSpace(host: "h", port: 1, protocol: nil, realm: nil, authenticationMethod: nil)
        #expect(space.copy() as AnyObject === space)
        #expect(space.copy(with: nil) as AnyObject === space)
    }

    @Test func describesEveryProperty() throws {
        let space = URLProtectionSpace(serverTrust: try Self.serverTrust(), host: "localhost", port: 8443)
        #expect(space.description.hasPrefix("<URLProtectionSpace 0x"))
        #expect(space.description.hasSuffix(
            ">: Host:localhost, Server:https, Auth-Scheme:NSURLAuthenticationMethodServerTrust, Realm:(null), "
                + "Port:8443, Proxy:NO, Proxy-Type:(null)"
        ))
    }
}
