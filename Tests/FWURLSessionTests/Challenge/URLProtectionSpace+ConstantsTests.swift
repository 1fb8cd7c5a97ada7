import FWURLSession
import Testing

// The strings are FoundationNetworking's (and Apple's): credentials stored or compared by method survive
// the port.
@Suite struct URLProtectionSpaceConstantsTests {
    @Test(arguments: [
        (NSURLProtectionSpaceHTTP, "NSURLProtectionSpaceHTTP"),
        (NSURLProtectionSpaceHTTPS, "NSURLProtectionSpaceHTTPS"),
        (NSURLProtectionSpaceFTP, "NSURLProtectionSpaceFTP"),
        (NSURLProtectionSpaceHTTPProxy, "NSURLProtectionSpaceHTTPProxy"),
        (NSURLProtectionSpaceHTTPSProxy, "NSURLProtectionSpaceHTTPSProxy"),
        (NSURLProtectionSpaceFTPProxy, "NSURLProtectionSpaceFTPProxy"),
        (NSURLProtectionSpaceSOCKSProxy, "NSURLProtectionSpaceSOCKSProxy"),
        (NSURLAuthenticationMethodDefault, "NSURLAuthenticationMethodDefault"),
        (NSURLAuthenticationMethodHTTPBasic, "NSURLAuthenticationMethodHTTPBasic"),
        (NSURLAuthenticationMethodHTTPDigest, "NSURLAuthenticationMethodHTTPDigest"),
        (NSURLAuthenticationMethodHTMLForm, "NSURLAuthenticationMethodHTMLForm"),
        (NSURLAuthenticationMethodNTLM, "NSURLAuthenticationMethodNTLM"),
        (NSURLAuthenticationMethodNegotiate, "NSURLAuthenticationMethodNegotiate"),
        (NSURLAuthenticationMethodClientCertificate, "NSURLAuthenticationMethodClientCertificate"),
        (NSURLAuthenticationMethodServerTrust, "NSURLAuthenticationMethodServerTrust"),
    ])
    func constantsHaveFoundationNetworkingsValues(_ constant: String, _ value: String) {
        #expect(constant == value)
    }
}
