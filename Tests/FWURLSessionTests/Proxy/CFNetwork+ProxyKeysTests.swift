import FWURLSession
import Testing

// The dictionary keys carry CFNetwork's own values, so a dictionary written with string literals on Apple
// platforms ("HTTPEnable", ...) means the same here.
@Suite struct CFNetworkProxyKeysTests {
    @Test(arguments: [
        (kCFNetworkProxiesHTTPEnable, "HTTPEnable"), (kCFNetworkProxiesHTTPProxy, "HTTPProxy"),
        (kCFNetworkProxiesHTTPPort, "HTTPPort"), (kCFNetworkProxiesHTTPSEnable, "HTTPSEnable"),
        (kCFNetworkProxiesHTTPSProxy, "HTTPSProxy"), (kCFNetworkProxiesHTTPSPort, "HTTPSPort"),
        (kCFNetworkProxiesSOCKSEnable, "SOCKSEnable"), (kCFNetworkProxiesSOCKSProxy, "SOCKSProxy"),
        (kCFNetworkProxiesSOCKSPort, "SOCKSPort"), (kCFNetworkProxiesExceptionsList, "ExceptionsList"),
        (kCFNetworkProxiesExcludeSimpleHostnames, "ExcludeSimpleHostnames"),
        (kCFProxyUsernameKey, "kCFProxyUsernameKey"), (kCFProxyPasswordKey, "kCFProxyPasswordKey"),
        (kCFStreamPropertySOCKSUser, "kCFStreamPropertySOCKSUser"),
        (kCFStreamPropertySOCKSPassword, "kCFStreamPropertySOCKSPassword"),
    ])
    func keysHaveCFNetworksValues(_ key: String, _ value: String) {
        #expect(key == value)
    }
}
